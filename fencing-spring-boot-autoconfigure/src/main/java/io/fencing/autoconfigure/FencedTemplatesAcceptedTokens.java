package io.fencing.autoconfigure;

import java.util.OptionalLong;
import java.util.function.Function;

import io.fencing.jdbc.FencedJdbcTemplate;
import io.fencing.token.redis.AcceptedTokens;

import org.springframework.beans.factory.ObjectProvider;

/**
 * The tokens accepted through every {@link FencedJdbcTemplate} bean, the starter's and
 * the application's own (several token columns, several data sources).
 */
final class FencedTemplatesAcceptedTokens implements AcceptedTokens {

	private final ObjectProvider<FencedJdbcTemplate> templates;

	FencedTemplatesAcceptedTokens(ObjectProvider<FencedJdbcTemplate> templates) {
		this.templates = templates;
	}

	@Override
	public OptionalLong newestInGuardedTables() {
		return newest(FencedJdbcTemplate::newestTokenInGuardedTables);
	}

	@Override
	public OptionalLong newestInAllTables() {
		return newest(FencedJdbcTemplate::newestTokenInAllTables);
	}

	private OptionalLong newest(Function<FencedJdbcTemplate, OptionalLong> read) {
		return this.templates.orderedStream()
			.map(read)
			.filter(OptionalLong::isPresent)
			.mapToLong(OptionalLong::getAsLong)
			.max();
	}

}
