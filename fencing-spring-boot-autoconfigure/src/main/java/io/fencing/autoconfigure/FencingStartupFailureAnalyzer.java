package io.fencing.autoconfigure;

import io.fencing.run.FencingStartupException;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Reports what the starter cannot start with once, as its exception describes it: a
 * {@code @FencedTask} that cannot run under its lock (the method and how to declare it),
 * a database without the starter's schema (what is missing and the DDL), instead of in
 * every exception that wraps it.
 */
class FencingStartupFailureAnalyzer extends AbstractFailureAnalyzer<FencingStartupException> {

	@Override
	protected FailureAnalysis analyze(Throwable rootFailure, FencingStartupException cause) {
		return new FailureAnalysis(cause.getDescription(), cause.getAction(), cause);
	}

}
