package io.fencing.autoconfigure;

import io.fencing.database.MissingSchemaException;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Reports a database that lacks the starter's schema (its sequence or lock table missing,
 * say) once, with the DDL to run, instead of in every exception that wraps it.
 */
class SchemaFailureAnalyzer extends AbstractFailureAnalyzer<MissingSchemaException> {

	@Override
	protected FailureAnalysis analyze(Throwable rootFailure, MissingSchemaException cause) {
		return new FailureAnalysis(cause.getDescription(), cause.getAction(), cause);
	}

}
