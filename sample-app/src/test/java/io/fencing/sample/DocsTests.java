package io.fencing.sample;

import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.SimpleJavaFileObject;
import javax.tools.ToolProvider;

import io.fencing.autoconfigure.FencingProperties;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

import org.springframework.boot.context.properties.bind.BindException;
import org.springframework.boot.context.properties.bind.BindHandler;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.bind.UnboundConfigurationPropertiesException;
import org.springframework.boot.context.properties.bind.handler.NoUnboundElementsBindHandler;
import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.boot.data.redis.autoconfigure.DataRedisProperties;
import org.springframework.boot.env.YamlPropertySourceLoader;
import org.springframework.core.env.EnumerablePropertySource;
import org.springframework.core.env.PropertySource;
import org.springframework.core.io.ByteArrayResource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

/**
 * Every snippet of {@code README.md} and {@code docs/*.md} is checked, so that none can
 * drift from the code. The convention (also in docs/building.md):
 * <ul>
 * <li>Every {@code ```java} block is compiled with javac, on its own, against this
 * module's test classpath. A block that is a whole source file compiles as it is; without
 * a {@code package} line it goes in package {@code snippets}.</li>
 * <li>A block that needs more (imports, the fields it uses, a class around it) has an
 * HTML comment right before it, which GitHub does not show, starting with
 * {@code <!-- compiled as}: the source around the block, where a line holding only
 * {@code ...} stands for the block. A comment without that line is put before the block
 * (imports, say).</li>
 * <li>Every {@code ```yaml} block with a top-level {@code fencing:} key binds to
 * {@link FencingProperties} with no key left unbound, as the starter checks at startup; a
 * block under {@code spring.data.redis} binds to Boot's {@link DataRedisProperties} the
 * same way.</li>
 * <li>Every relative link of a page points to a file that exists.</li>
 * </ul>
 * {@link ReadmeTests} checks that the README's job runs as pasted, and that the snippets
 * showing the sample's own code and configuration are that code.
 */
class DocsTests {

	private static final Path ROOT = Path.of("..");

	private static final Pattern CODE_BLOCK = Pattern.compile("^```(\\w*)\\n(.*?)^```$",
			Pattern.DOTALL | Pattern.MULTILINE);

	private static final Pattern CONTEXT = Pattern.compile("<!-- compiled as[^\\n]*\\n(.*?)-->\\s*$", Pattern.DOTALL);

	private static final Pattern PUBLIC_TYPE = Pattern.compile(
			"^public\\s+(?:final\\s+|abstract\\s+)*(?:class|interface|record|enum|@interface)\\s+(\\w+)",
			Pattern.MULTILINE);

	private static final Pattern LINK = Pattern.compile("\\]\\(([^)#\\s]*)(#[^)\\s]*)?\\)");

	@TestFactory
	Stream<DynamicTest> everyJavaSnippetCompiles() throws IOException {
		List<Snippet> snippets = snippets("java");
		assertThat(snippets).as("Java snippets found").hasSizeGreaterThan(5);
		return snippets.stream().map((snippet) -> DynamicTest.dynamicTest(snippet.toString(), () -> compile(snippet)));
	}

	@TestFactory
	Stream<DynamicTest> everyFencingYamlSnippetBindsWithoutUnknownKeys() throws IOException {
		List<Snippet> fencing = new ArrayList<>();
		List<Snippet> redis = new ArrayList<>();
		for (Snippet snippet : snippets("yaml")) {
			Set<String> keys = keys(snippet);
			if (keys.stream().anyMatch((key) -> key.startsWith("fencing."))) {
				fencing.add(snippet);
			}
			if (keys.stream().anyMatch((key) -> key.startsWith("spring.data.redis."))) {
				redis.add(snippet);
			}
		}
		assertThat(fencing).as("YAML snippets with fencing settings").hasSizeGreaterThan(3);
		assertThat(redis).as("YAML snippets with Redis settings").hasSizeGreaterThan(3);
		return Stream.concat(
				fencing.stream()
					.map((snippet) -> DynamicTest.dynamicTest("fencing: " + snippet,
							() -> bindsWithoutUnknownKeys(snippet, "fencing", FencingProperties.class))),
				redis.stream()
					.map((snippet) -> DynamicTest.dynamicTest("spring.data.redis: " + snippet,
							() -> bindsWithoutUnknownKeys(snippet, "spring.data.redis", DataRedisProperties.class))));
	}

	@Test
	void everyRelativeLinkPointsToAFile() throws IOException {
		List<String> broken = new ArrayList<>();
		for (Path page : pages()) {
			Matcher matcher = LINK.matcher(withoutCodeBlocks(Files.readString(page)));
			while (matcher.find()) {
				String target = matcher.group(1);
				if (target.isEmpty() || target.contains("://")) {
					continue;
				}
				if (!Files.exists(page.getParent().resolve(target))) {
					broken.add(ROOT.relativize(page) + ": " + target);
				}
			}
		}
		assertThat(broken).isEmpty();
	}

	@Test
	void theTimelinePictureIsShown() throws IOException {
		assertThat(Files.readString(ROOT.resolve("docs/sample-app.md"))).contains("](sample-app-timeline.png)");
		assertThat(ROOT.resolve("docs/sample-app-timeline.png")).isNotEmptyFile();
	}

	/** The source javac compiles for a snippet: its context around it, and a package. */
	static String source(Snippet snippet) {
		String source = snippet.code();
		if (snippet.context() != null) {
			List<String> context = snippet.context().lines().toList();
			int at = context.stream().map(String::trim).toList().indexOf("...");
			source = (at < 0) ? String.join("\n", context) + "\n" + source : String.join("\n", context.subList(0, at))
					+ "\n" + source + "\n" + String.join("\n", context.subList(at + 1, context.size())) + "\n";
		}
		return Pattern.compile("^package\\s", Pattern.MULTILINE).matcher(source).find() ? source
				: "package snippets;\n\n" + source;
	}

	static void compile(Snippet snippet) throws IOException {
		Path output = Files.createTempDirectory("snippet");
		try {
			List<String> errors = compile(source(snippet), output);
			assertThat(errors).as("javac's errors for %s, compiled as:%n%s", snippet, numbered(source(snippet)))
				.isEmpty();
		}
		finally {
			try (Stream<Path> files = Files.walk(output)) {
				files.sorted((a, b) -> b.compareTo(a)).forEach((file) -> file.toFile().delete());
			}
		}
	}

	/** javac's errors, none when the sources compiled into {@code output}. */
	static List<String> compile(String source, Path output) {
		return compile(List.of(source), output);
	}

	/** javac's errors, none when the sources compiled into {@code output} together. */
	static List<String> compile(List<String> sources, Path output) {
		List<JavaFileObject> files = new ArrayList<>();
		for (String source : sources) {
			Matcher type = PUBLIC_TYPE.matcher(source);
			String name = type.find() ? type.group(1) : "Snippet" + files.size();
			files.add(new SimpleJavaFileObject(URI.create("string:///" + name + ".java"), JavaFileObject.Kind.SOURCE) {

				@Override
				public CharSequence getCharContent(boolean ignoreEncodingErrors) {
					return source;
				}

			});
		}
		JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
		DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
		boolean compiled = compiler
			.getTask(null, null, diagnostics, List.of("-classpath", System.getProperty("java.class.path"), "-d",
					output.toString(), "-proc:none", "-parameters"), null, files)
			.call();
		List<String> errors = diagnostics.getDiagnostics()
			.stream()
			.filter((diagnostic) -> diagnostic.getKind() == Diagnostic.Kind.ERROR)
			.map((diagnostic) -> "line " + diagnostic.getLineNumber() + ": " + diagnostic.getMessage(Locale.ROOT))
			.toList();
		return (compiled || !errors.isEmpty()) ? errors : List.of("javac failed without an error");
	}

	private static void bindsWithoutUnknownKeys(Snippet snippet, String prefix, Class<?> type) throws IOException {
		Binder binder = new Binder(ConfigurationPropertySources.from(load(snippet)));
		try {
			binder.bind(prefix, Bindable.of(type), new NoUnboundElementsBindHandler(BindHandler.DEFAULT));
		}
		catch (BindException ex) {
			if (ex.getCause() instanceof UnboundConfigurationPropertiesException unbound) {
				// As the starter's check: a key left empty changes nothing.
				List<String> unknown = unbound.getUnboundProperties()
					.stream()
					.filter((property) -> !String.valueOf(property.getValue()).isBlank())
					.map(ConfigurationProperty::getName)
					.map(Objects::toString)
					.sorted()
					.toList();
				assertThat(unknown).as("keys of %s that %s does not have", snippet, type.getSimpleName()).isEmpty();
			}
			else {
				fail(snippet + " does not bind to " + type.getSimpleName(), ex);
			}
		}
	}

	private static List<PropertySource<?>> load(Snippet snippet) throws IOException {
		return new YamlPropertySourceLoader().load(snippet.toString(),
				new ByteArrayResource(snippet.code().getBytes(StandardCharsets.UTF_8)));
	}

	private static Set<String> keys(Snippet snippet) throws IOException {
		return load(snippet).stream()
			.flatMap((source) -> Stream.of(((EnumerablePropertySource<?>) source).getPropertyNames()))
			.collect(Collectors.toSet());
	}

	/** The README and every page under docs/. */
	static List<Path> pages() throws IOException {
		List<Path> pages = new ArrayList<>();
		pages.add(ROOT.resolve("README.md"));
		try (Stream<Path> docs = Files.list(ROOT.resolve("docs"))) {
			docs.filter((page) -> page.toString().endsWith(".md")).sorted().forEach(pages::add);
		}
		return pages;
	}

	/**
	 * The blocks of this language in every page, each with its context comment, if any.
	 */
	static List<Snippet> snippets(String language) throws IOException {
		List<Snippet> snippets = new ArrayList<>();
		for (Path page : pages()) {
			snippets.addAll(snippets(page, language));
		}
		return snippets;
	}

	static List<Snippet> snippets(Path page, String language) throws IOException {
		String text = Files.readString(page);
		List<Snippet> snippets = new ArrayList<>();
		Matcher block = CODE_BLOCK.matcher(text);
		int previousEnd = 0;
		while (block.find()) {
			if (block.group(1).equals(language)) {
				Matcher context = CONTEXT.matcher(text.substring(previousEnd, block.start()));
				int line = (int) text.substring(0, block.start()).lines().count() + 1;
				snippets.add(new Snippet(ROOT.relativize(page).toString(), line, block.group(2),
						context.find() ? context.group(1) : null));
			}
			previousEnd = block.end();
		}
		return snippets;
	}

	private static String withoutCodeBlocks(String text) {
		return CODE_BLOCK.matcher(text).replaceAll("");
	}

	private static String numbered(String source) {
		List<String> lines = source.lines().toList();
		StringBuilder numbered = new StringBuilder();
		for (int i = 0; i < lines.size(); i++) {
			numbered.append(String.format("%3d  %s%n", i + 1, lines.get(i)));
		}
		return numbered.toString();
	}

	/**
	 * A code block of a page.
	 *
	 * @param page the page, relative to the repository
	 * @param line the line of its opening fence
	 * @param code the block's text
	 * @param context the source around it, from its comment, or null
	 */
	record Snippet(String page, int line, String code, String context) {

		@Override
		public String toString() {
			return this.page + ":" + this.line;
		}

	}

}
