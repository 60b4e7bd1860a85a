package io.fencing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code docs/architecture.md} describes the packages as they are: each package of the
 * starter is a row of its table and each row is a package, and each package says in its
 * {@code package-info} which of its types are internal. No class holds several concerns'
 * worth of code: none is over 600 lines.
 */
class ArchitectureTests {

	private static final Path SOURCES = Path.of("src/main/java/io/fencing");

	private static final Path ARCHITECTURE = Path.of("../docs/architecture.md");

	/** Packages that hold only documented API. */
	private static final Set<String> API_ONLY = Set.of("", "redis");

	@Test
	void everyPackageIsARowOfTheArchitecturePageAndEveryRowAPackage() throws IOException {
		Set<String> rows = new TreeSet<>();
		String page = read(ARCHITECTURE);
		String table = page.substring(page.indexOf("## Packages of"), page.indexOf("## The way of a run"));
		Matcher row = Pattern.compile("(?m)^\\| `([a-z.]+)` \\|").matcher(table);
		while (row.find()) {
			rows.add(row.group(1));
		}
		Set<String> packages = new TreeSet<>(packages());
		packages.remove("");
		assertThat(rows).as("the packages table of docs/architecture.md").isEqualTo(packages);
	}

	@Test
	void everyPackageSaysWhatOfItIsInternal() throws IOException {
		for (String name : packages()) {
			Path info = SOURCES.resolve(name).resolve("package-info.java");
			assertThat(info).as("package-info of io.fencing%s", name.isEmpty() ? "" : "." + name).exists();
			if (!API_ONLY.contains(name)) {
				assertThat(read(info).toLowerCase())
					.as("package-info of io.fencing.%s says which types are internal", name)
					.contains("internal");
			}
		}
	}

	@Test
	void noSourceFileIsOverSixHundredLines() throws IOException {
		try (Stream<Path> files = Files.walk(SOURCES)) {
			List<String> tooLong = files.filter((file) -> file.toString().endsWith(".java")).filter((file) -> {
				try {
					return Files.readAllLines(file, StandardCharsets.UTF_8).size() > 600;
				}
				catch (IOException ex) {
					throw new UncheckedIOException(ex);
				}
			}).map(Path::toString).toList();
			assertThat(tooLong).as("source files over 600 lines: split them by concern").isEmpty();
		}
	}

	private static List<String> packages() throws IOException {
		try (Stream<Path> directories = Files.walk(SOURCES)) {
			return directories.filter(Files::isDirectory)
				.map((directory) -> SOURCES.relativize(directory).toString().replace('/', '.'))
				.sorted()
				.toList();
		}
	}

	private static String read(Path path) throws IOException {
		return Files.readString(path, StandardCharsets.UTF_8);
	}

}
