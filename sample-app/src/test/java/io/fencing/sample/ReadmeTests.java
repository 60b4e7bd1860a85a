package io.fencing.sample;

import java.io.IOException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import io.fencing.OnBusy;
import io.fencing.autoconfigure.FencingProperties;
import io.fencing.sample.DocsTests.Snippet;
import io.fencing.testsupport.TestServices;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.boot.env.YamlPropertySourceLoader;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.env.PropertySource;
import org.springframework.core.io.ByteArrayResource;
import org.springframework.core.io.DefaultResourceLoader;
import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The README is the user's first contract: its job runs as pasted, its Quick start is the
 * command CI runs, and the snippets of the docs that show the sample's own code and
 * configuration are that code, line for line. {@link DocsTests} compiles every Java
 * snippet and binds every fencing YAML snippet.
 */
class ReadmeTests {

	private static final Path README = Path.of("..", "README.md");

	private static final Path SAMPLE_APP_PAGE = Path.of("..", "docs", "sample-app.md");

	private static final Path TESTING_PAGE = Path.of("..", "docs", "testing.md");

	@Test
	void theCompleteJobRunsAsPasted(@TempDir Path app) throws IOException {
		List<String> classes = DocsTests.snippets(README, "java").stream().map(Snippet::code).toList();
		assertThat(classes).hasSize(2)
			.allSatisfy((source) -> assertThat(source).startsWith("package com.example.stock;"));
		assertThat(classes.get(0)).contains("@EnableScheduling");
		assertThat(DocsTests.compile(classes, app)).isEmpty();
		Files.writeString(app.resolve("schema.sql"), only(DocsTests.snippets(README, "sql")).code());
		Files.writeString(app.resolve("application.yml"), only(DocsTests.snippets(README, "yaml")).code());

		ClassLoader testLoader = Thread.currentThread().getContextClassLoader();
		try (URLClassLoader loader = new URLClassLoader(new URL[] { app.toUri().toURL() }, testLoader)) {
			Thread.currentThread().setContextClassLoader(loader);
			SpringApplication application = new SpringApplication(
					loader.loadClass("com.example.stock.StockApplication"));
			application.setResourceLoader(new DefaultResourceLoader(loader));
			// Only what this test needs to differ: the README's files rather than the
			// sample's on the same classpath, the test Redis, and no web server.
			try (ConfigurableApplicationContext context = application.run(
					"--spring.config.location=file:" + app.resolve("application.yml"),
					"--spring.sql.init.schema-locations=file:" + app.resolve("schema.sql"),
					"--spring.sql.init.data-locations=optional:file:" + app.resolve("no-data.sql"),
					"--spring.data.redis.url=" + TestServices.redisUrl(), "--spring.main.web-application-type=none")) {
				JdbcTemplate jdbc = context.getBean(JdbcTemplate.class);
				await().atMost(Duration.ofSeconds(30))
					.untilAsserted(() -> assertThat(
							jdbc.queryForMap("SELECT quantity, last_token FROM stock WHERE sku = 'A-1'"))
						.containsEntry("QUANTITY", 8)
						.hasEntrySatisfying("LAST_TOKEN", (token) -> assertThat((Long) token).isPositive()));
			}
		}
		catch (ClassNotFoundException ex) {
			throw new IllegalStateException(ex);
		}
		finally {
			Thread.currentThread().setContextClassLoader(testLoader);
		}
	}

	@Test
	void theQuickStartRunsTheTestsWithTheCommandCiRuns() throws IOException {
		String readme = Files.readString(README);
		String quickStart = readme.substring(readme.indexOf("## Quick start"), readme.indexOf("## Installation"));
		assertThat(quickStart)
			.contains("```bash\n./mvnw -B -q install -DskipTests && ./mvnw -B -pl sample-app spring-boot:run\n```")
			.contains("```bash\n./mvnw -B verify\n```");
		assertThat(Files.readString(Path.of("..", ".ci", "run")).lines()).as("the command CI runs")
			.contains("./mvnw -B verify");
		assertThat(readme.lines().takeWhile((line) -> !line.equals("## Quick start")).count())
			.as("lines before the Quick start")
			.isLessThan(30);
	}

	@Test
	void theCompleteJobsConfigurationBindsToTheStartersProperties() throws IOException {
		List<PropertySource<?>> sources = new YamlPropertySourceLoader().load("README", new ByteArrayResource(
				only(DocsTests.snippets(README, "yaml")).code().getBytes(StandardCharsets.UTF_8)));
		FencingProperties fencing = new Binder(ConfigurationPropertySources.from(sources)).bindOrCreate("fencing",
				FencingProperties.class);
		assertThat(fencing.getWaitTime()).isZero();
		assertThat(fencing.getOnBusy()).isEqualTo(OnBusy.SKIP);
		assertThat(fencing.getTasks()).containsOnlyKeys("stock-sync");
		assertThat(fencing.getTasks().get("stock-sync").getLeaseTime()).hasSeconds(30);
		assertThat(sources.get(0).getProperty("stock.sync.every")).as("the property the job's @Scheduled reads")
			.isNotNull();
	}

	@Test
	void theTableIsTheSamplesSchema() throws IOException {
		String readme = only(DocsTests.snippets(README, "sql")).code().replaceAll("\\s+", " ").trim();
		// The stock table, the first statement; the shop service's table follows it.
		String schema = Files.readString(Path.of("src/main/resources/schema.sql")).replaceAll("\\s+", " ").trim();
		assertThat(readme).startsWith(schema.substring(0, schema.indexOf(");") + 2));
	}

	@Test
	void theJobWalkthroughIsTheSamplesJob() throws IOException {
		assertThat(lines(Files.readString(Path.of("src/main/java/io/fencing/sample/StockSyncJob.java"))))
			.containsSubsequence(lines(blockHolding(SAMPLE_APP_PAGE, "java", "// (1)")));
	}

	@Test
	void theTestKitExampleIsTheSamplesWholeTest() throws IOException {
		assertThat(blockHolding(TESTING_PAGE, "java", "@AutoConfigureInMemoryFencing"))
			.isEqualTo(Files.readString(Path.of("src/test/java/io/fencing/sample/StockSyncJobTests.java")));
	}

	@Test
	void theConfigurationWalkthroughIsTheSamplesApplicationYml() throws IOException {
		assertThat(yamlLines(Files.readString(Path.of("src/main/resources/application.yml"))))
			.containsSubsequence(yamlLines(blockHolding(SAMPLE_APP_PAGE, "yaml", "# (1)")));
	}

	private static Snippet only(List<Snippet> snippets) {
		assertThat(snippets).hasSize(1);
		return snippets.get(0);
	}

	/** The first block of the page in this language that holds {@code text}. */
	private static String blockHolding(Path page, String language, String text) throws IOException {
		return DocsTests.snippets(page, language)
			.stream()
			.map(Snippet::code)
			.filter((block) -> block.contains(text))
			.findFirst()
			.orElseThrow();
	}

	/** Without comments, which the walkthrough replaces by its markers. */
	private static List<String> yamlLines(String yaml) {
		return yaml.lines()
			.map((line) -> line.replaceAll("\\s+#.*$", "").stripTrailing())
			.filter((line) -> !line.isBlank() && !line.trim().startsWith("#"))
			.toList();
	}

	/** Trimmed, without walkthrough markers, blank lines and comment lines. */
	private static List<String> lines(String text) {
		return text.lines()
			.map((line) -> line.replaceAll("\\s*(//|#) \\(\\d+\\)$", "").trim())
			.filter((line) -> !line.isEmpty() && !line.startsWith("//"))
			.toList();
	}

}
