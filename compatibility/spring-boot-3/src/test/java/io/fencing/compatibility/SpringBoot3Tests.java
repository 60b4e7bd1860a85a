package io.fencing.compatibility;

import io.fencing.FencedTask;
import org.junit.jupiter.api.Test;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.SpringBootVersion;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.stereotype.Component;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * A Spring Boot 3 application with the starter and a fenced job: it stops before its
 * context refreshes, saying which Boot the starter needs and which one it found.
 */
class SpringBoot3Tests {

	@Test
	void theStartupFailsSayingTheStarterNeedsSpringBoot4() {
		assertThat(SpringBootVersion.getVersion()).startsWith("3.");
		SpringApplication application = new SpringApplication(Boot3Application.class);
		application.setWebApplicationType(WebApplicationType.NONE);
		assertThatIllegalStateException().isThrownBy(application::run)
			.withMessage("fencing-spring-boot-starter requires Spring Boot 4.0 or later; this application runs "
					+ "Spring Boot " + SpringBootVersion.getVersion()
					+ ". Upgrade the application to Spring Boot 4.0 or later, or remove the starter.")
			.withNoCause();
	}

	@SpringBootApplication
	static class Boot3Application {

	}

	@Component
	static class StockSyncJob {

		@FencedTask("stock-sync")
		public void run() {
		}

	}

}
