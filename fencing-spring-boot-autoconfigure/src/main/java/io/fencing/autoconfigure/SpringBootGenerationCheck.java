package io.fencing.autoconfigure;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.SpringBootVersion;
import org.springframework.boot.thread.Threading;
import org.springframework.context.ApplicationContextInitializer;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * Stops an application on Spring Boot 3 before its context refreshes, with a message
 * saying which Boot the starter needs: the auto-configurations are built on Boot 4's
 * modules, and would otherwise fail with a {@code ClassNotFoundException} of a Boot 4
 * class. Registered in {@code spring.factories}, so it runs on any Boot.
 */
final class SpringBootGenerationCheck implements ApplicationContextInitializer<ConfigurableApplicationContext> {

	@Override
	public void initialize(ConfigurableApplicationContext context) {
		try {
			// In Spring Boot 4 only (Boot 3 had it in another package). A class literal,
			// not a name, so that a native image keeps it.
			Threading.class.getName();
		}
		catch (NoClassDefFoundError ex) {
			throw new IllegalStateException(message(SpringBootVersion.getVersion()));
		}
	}

	static String message(@Nullable String bootVersion) {
		return "fencing-spring-boot-starter requires Spring Boot 4.0 or later; this application runs Spring Boot "
				+ ((bootVersion != null) ? bootVersion
						: "3 or older (org.springframework.boot.thread.Threading is " + "missing)")
				+ ". Upgrade the application to Spring Boot 4.0 or later, or remove the starter.";
	}

}
