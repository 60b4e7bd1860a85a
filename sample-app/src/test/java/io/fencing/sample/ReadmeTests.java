package io.fencing.sample;

import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.SimpleJavaFileObject;
import javax.tools.ToolProvider;

import io.fencing.OnBusy;
import io.fencing.autoconfigure.FencingProperties;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.boot.env.YamlPropertySourceLoader;
import org.springframework.core.env.PropertySource;
import org.springframework.core.io.ByteArrayResource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The README is the user's contract: its snippets compile, or are the sample's own code
 * and configuration, line for line.
 */
class ReadmeTests {

	private static final Path README = Path.of("..", "README.md");

	private static final Pattern CODE_BLOCK = Pattern.compile("```(\\w+)\\n(.*?)```", Pattern.DOTALL);

	/** Line markers the README's walkthroughs refer to: {@code // (1)}, {@code # (2)}. */
	private static final Pattern MARKER = Pattern.compile("\\s*(//|#) \\(\\d+\\)$");

	@Test
	void theFencedJobSnippetCompiles(@TempDir Path output) throws IOException {
		assertCompiles("StockSyncJob", """
				import io.fencing.FencedTask;
				import io.fencing.jdbc.FencedJdbcTemplate;
				import io.fencing.sample.SupplierFeed;

				import org.springframework.scheduling.annotation.Scheduled;
				import org.springframework.stereotype.Component;
				""", blocks("java").get(0), output);
	}

	@Test
	void theProgrammaticSnippetCompiles(@TempDir Path output) throws IOException {
		assertCompiles("StockService", """
				import java.time.Duration;
				import java.util.Map;

				import io.fencing.FencedTasks;
				import io.fencing.OnBusy;
				import io.fencing.sample.StockRepository;

				import org.springframework.stereotype.Service;
				""", blocks("java").get(1), output);
	}

	private static void assertCompiles(String className, String imports, String snippet, Path output) {
		String source = "package readme;\n\n" + imports + "\n" + snippet;
		JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
		DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
		JavaFileObject file = new SimpleJavaFileObject(URI.create("string:///readme/" + className + ".java"),
				JavaFileObject.Kind.SOURCE) {

			@Override
			public CharSequence getCharContent(boolean ignoreEncodingErrors) {
				return source;
			}

		};
		boolean compiled = compiler
			.getTask(null, null, diagnostics,
					List.of("-classpath", System.getProperty("java.class.path"), "-d", output.toString(), "-proc:none"),
					null, List.of(file))
			.call();
		assertThat(compiled)
			.as(() -> diagnostics.getDiagnostics()
				.stream()
				.filter((diagnostic) -> diagnostic.getKind() == Diagnostic.Kind.ERROR)
				.map((diagnostic) -> diagnostic.getLineNumber() + ": " + diagnostic.getMessage(Locale.ROOT))
				.toList()
				.toString())
			.isTrue();
	}

	@Test
	void theFencedJobConfigurationBindsToTheStartersProperties() throws IOException {
		List<PropertySource<?>> sources = new YamlPropertySourceLoader().load("README",
				new ByteArrayResource(blocks("yaml").get(0).getBytes(StandardCharsets.UTF_8)));
		FencingProperties fencing = new Binder(ConfigurationPropertySources.from(sources)).bindOrCreate("fencing",
				FencingProperties.class);
		assertThat(fencing.getWaitTime()).isZero();
		assertThat(fencing.getOnBusy()).isEqualTo(OnBusy.SKIP);
		assertThat(fencing.getTasks()).containsOnlyKeys("stock-sync");
		assertThat(fencing.getTasks().get("stock-sync").getLeaseTime()).hasSeconds(30);
	}

	@Test
	void theJobWalkthroughIsTheSamplesJob() throws IOException {
		assertThat(lines(Path.of("src/main/java/io/fencing/sample/StockSyncJob.java")))
			.containsSubsequence(lines(javaBlockHolding("// (1)")));
	}

	@Test
	void theTestKitExampleIsTheSamplesTest() throws IOException {
		assertThat(lines(Path.of("src/test/java/io/fencing/sample/StockSyncJobTests.java")))
			.containsSubsequence(lines(javaBlockHolding("@AutoConfigureInMemoryFencing")));
	}

	@Test
	void theConfigurationWalkthroughIsTheSamplesApplicationYml() throws IOException {
		List<String> yaml = blocks("yaml");
		assertThat(yamlLines(Files.readString(Path.of("src/main/resources/application.yml"))))
			.containsSubsequence(yamlLines(yaml.get(yaml.size() - 1)));
	}

	@Test
	void theTableIsTheSamplesSchema() throws IOException {
		String readme = blocks("sql").get(0).replaceAll("\\s+", " ").trim();
		String schema = Files.readString(Path.of("src/main/resources/schema.sql")).replaceAll("\\s+", " ");
		assertThat(readme.replace("CREATE TABLE stock", "CREATE TABLE IF NOT EXISTS stock").replace(";", ""))
			.isEqualToIgnoringWhitespace(schema.replace(";", ""));
	}

	/** Without comments, which the README's walkthrough replaces by its markers. */
	private static List<String> yamlLines(String yaml) {
		return yaml.lines()
			.map((line) -> line.replaceAll("\\s+#.*$", "").stripTrailing())
			.filter((line) -> !line.isBlank() && !line.trim().startsWith("#"))
			.toList();
	}

	/** The first Java block that holds {@code text}. */
	private static String javaBlockHolding(String text) throws IOException {
		return blocks("java").stream().filter((block) -> block.contains(text)).findFirst().orElseThrow();
	}

	private static List<String> blocks(String language) throws IOException {
		List<String> blocks = new ArrayList<>();
		Matcher matcher = CODE_BLOCK.matcher(Files.readString(README));
		while (matcher.find()) {
			if (matcher.group(1).equals(language)) {
				blocks.add(matcher.group(2));
			}
		}
		return blocks;
	}

	private static List<String> lines(Path file) throws IOException {
		return lines(Files.readString(file));
	}

	/** Trimmed, without walkthrough markers, blank lines and comment lines. */
	private static List<String> lines(String text) {
		return text.lines()
			.map((line) -> MARKER.matcher(line).replaceAll("").trim())
			.filter((line) -> !line.isEmpty() && !line.startsWith("//"))
			.toList();
	}

}
