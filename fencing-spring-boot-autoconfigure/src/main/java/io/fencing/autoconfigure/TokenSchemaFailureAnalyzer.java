package io.fencing.autoconfigure;

import io.fencing.token.JdbcTokenSource.MissingSchemaException;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Reports a database that cannot give tokens (its sequence missing, say) once, with the
 * DDL to run, instead of in every exception that wraps it.
 */
class TokenSchemaFailureAnalyzer extends AbstractFailureAnalyzer<MissingSchemaException> {

	@Override
	protected FailureAnalysis analyze(Throwable rootFailure, MissingSchemaException cause) {
		return new FailureAnalysis(cause.getDescription(), cause.getAction(), cause);
	}

}
