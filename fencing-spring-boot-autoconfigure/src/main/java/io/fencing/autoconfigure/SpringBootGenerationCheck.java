package io.fencing.autoconfigure;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.SpringBootVersion;
import org.springframework.context.ApplicationContextInitializer;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.util.ClassUtils;

/**
 * Stops an application on Spring Boot 3 before its context refreshes, with a message
 * saying which Boot the starter needs: the auto-configurations are built on Boot 4's
 * modules, and would otherwise fail with a {@code ClassNotFoundException} of a Boot 4
 * class. Registered in {@code spring.factories}, so it runs on any Boot; it uses only
 * what Boot 3 has too.
 */
public final class SpringBootGenerationCheck implements ApplicationContextInitializer<ConfigurableApplicationContext> {

	/** In Spring Boot 4 only: Boot 3 had it in another package. */
	static final String BOOT_4_CLASS = "org.springframework.boot.thread.Threading";

	@Override
	public void initialize(ConfigurableApplicationContext context) {
		if (!ClassUtils.isPresent(BOOT_4_CLASS, context.getClassLoader())) {
			throw new IllegalStateException(message(SpringBootVersion.getVersion()));
		}
	}

	static String message(@Nullable String bootVersion) {
		return "fencing-spring-boot-starter requires Spring Boot 4.0 or later; this application runs Spring Boot "
				+ ((bootVersion != null) ? bootVersion : "3 or older (" + BOOT_4_CLASS + " is missing)")
				+ ". Upgrade the application to Spring Boot 4.0 or later, or remove the starter.";
	}

}
