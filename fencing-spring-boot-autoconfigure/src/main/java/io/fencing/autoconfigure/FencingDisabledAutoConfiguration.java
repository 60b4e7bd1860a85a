package io.fencing.autoconfigure;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.context.annotation.Bean;

/**
 * Says out loud that {@code fencing.enabled=false} leaves {@code @FencedTask} methods
 * unguarded, so that switching fencing off is never silent.
 */
@AutoConfiguration
@ConditionalOnBooleanProperty(name = "fencing.enabled", havingValue = false)
public final class FencingDisabledAutoConfiguration {

	@Bean
	FencingDisabledWarning fencingDisabledWarning() {
		return new FencingDisabledWarning();
	}

	static final class FencingDisabledWarning {

		private static final Log logger = LogFactory.getLog(FencingDisabledAutoConfiguration.class);

		FencingDisabledWarning() {
			logger.warn("fencing.enabled=false: @FencedTask methods run without a lock or a fencing token, "
					+ "FencedJdbcTemplate's guarded methods and the fenced Redis values run their writes unguarded, "
					+ "and @FencedEndpoint methods run without checking the caller's token");
		}

	}

}
