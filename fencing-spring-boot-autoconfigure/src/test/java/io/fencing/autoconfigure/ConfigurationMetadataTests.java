package io.fencing.autoconfigure;

import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.Field;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

import com.jayway.jsonpath.DocumentContext;
import com.jayway.jsonpath.JsonPath;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The configuration metadata that spring-boot-configuration-processor generates from
 * {@link FencingProperties}, with the hints of the additional metadata file: what an IDE
 * completes and explains for every {@code fencing.*} key, and for the {@code fencing}
 * endpoint's {@code management.endpoint.fencing.*} keys.
 */
class ConfigurationMetadataTests {

	private final DocumentContext metadata = JsonPath.parse(generatedMetadata());

	@Test
	void everyKeyIsDescribed() {
		List<Map<String, Object>> properties = this.metadata.read("$.properties[*]");
		assertThat(properties).extracting((property) -> property.get("name"))
			.containsExactlyInAnyOrder("fencing.enabled", "fencing.lease-time", "fencing.wait-time", "fencing.on-busy",
					"fencing.hold-at-least", "fencing.tasks", "fencing.lock-store", "fencing.token-source",
					"fencing.jdbc.token-column", "fencing.jdbc.statement-cache-size", "fencing.jdbc.initialize-schema",
					"fencing.jdbc.fenced-tables", "fencing.jdbc.tombstone-retention", "fencing.redis.config",
					"fencing.redis.fail-fast", "fencing.redis.key-prefix", "fencing.operations.retention",
					"management.endpoint.fencing.access", "management.endpoint.fencing.cache.time-to-live",
					"management.health.fencing.enabled");
		assertThat(properties).allSatisfy((property) -> assertThat((String) property.get("description"))
			.as("description of %s", property.get("name"))
			.isNotBlank()
			.endsWith("."));
	}

	@Test
	void defaultsAreTheOnesTheStarterApplies() {
		assertThat(defaultOf("fencing.enabled")).isEqualTo(true);
		assertThat(defaultOf("fencing.wait-time")).as("0 ms: one attempt").isEqualTo(0);
		assertThat(defaultOf("fencing.on-busy")).isEqualTo("skip");
		assertThat(defaultOf("fencing.hold-at-least")).as("0 ms: released when the run ends").isEqualTo(0);
		assertThat(defaultOf("fencing.jdbc.token-column")).isEqualTo("last_token");
		assertThat(defaultOf("fencing.jdbc.statement-cache-size")).isEqualTo(512);
		assertThat(defaultOf("fencing.jdbc.initialize-schema")).isEqualTo("embedded");
		assertThat(defaultOf("fencing.jdbc.tombstone-retention")).isEqualTo("3d");
		assertThat(this.metadata.read("$.properties[?(@.name == 'fencing.redis.key-prefix')].defaultValue", List.class))
			.as("unset: fencing:lock: with the database's tokens, else empty")
			.isEmpty();
		assertThat(this.metadata.read("$.properties[?(@.name == 'fencing.lock-store')].defaultValue", List.class))
			.as("unset: redis with Redisson on the class path, else database")
			.isEmpty();
		assertThat(this.metadata.read("$.properties[?(@.name == 'fencing.token-source')].defaultValue", List.class))
			.as("unset: database with a single DataSource, else redis")
			.isEmpty();
		assertThat(defaultOf("management.health.fencing.enabled")).isEqualTo(true);
		assertThat(this.metadata.read("$.properties[?(@.name == 'fencing.lease-time')].defaultValue", List.class))
			.as("unset: Redisson's watchdog")
			.isEmpty();
	}

	@Test
	void onBusyOffersSkipAndFail() {
		List<String> values = this.metadata.read("$.hints[?(@.name == 'fencing.on-busy')].values[*].value");
		assertThat(values).containsExactly("skip", "fail");
		List<String> descriptions = this.metadata.read("$.hints[?(@.name == 'fencing.on-busy')].values[*].description");
		assertThat(descriptions).hasSize(2).allSatisfy((description) -> assertThat(description).isNotBlank());
	}

	/**
	 * The metadata format has no entries below a map's keys: an IDE completes a task's
	 * keys from the map's value type, and the map's description names them. Every hint
	 * names a property of the file, or a map's keys or values.
	 */
	@Test
	void perTaskKeysComeFromTheMapsValueTypeAndItsDescription() {
		assertThat(this.metadata.read("$.properties[?(@.name == 'fencing.tasks')].type", List.class))
			.containsExactly("java.util.Map<java.lang.String,io.fencing.autoconfigure.FencingProperties$Task>");
		assertThat(this.metadata.read("$.properties[?(@.name == 'fencing.tasks')].description", List.class))
			.singleElement()
			.asString()
			.contains("lease-time", "wait-time", "on-busy", "hold-at-least", "skip or fail");
		assertThat(Arrays.stream(FencingProperties.Task.class.getDeclaredFields()).map(Field::getName))
			.containsExactlyInAnyOrder("leaseTime", "waitTime", "onBusy", "holdAtLeast");
		List<String> properties = this.metadata.read("$.properties[*].name");
		List<String> hints = this.metadata.read("$.hints[*].name");
		assertThat(hints)
			.allSatisfy((hint) -> assertThat(properties).contains(hint.replaceFirst("\\.(keys|values)$", "")));
	}

	private Object defaultOf(String key) {
		List<Object> defaults = this.metadata.read("$.properties[?(@.name == '" + key + "')].defaultValue");
		assertThat(defaults).as("default of %s", key).hasSize(1);
		return defaults.get(0);
	}

	/** This module's generated file, not one of the other jars on the class path. */
	private static String generatedMetadata() {
		URL classes = FencingProperties.class.getProtectionDomain().getCodeSource().getLocation();
		try (InputStream in = new URL(classes, "META-INF/spring-configuration-metadata.json").openStream()) {
			return new String(in.readAllBytes(), StandardCharsets.UTF_8);
		}
		catch (IOException ex) {
			throw new IllegalStateException("No configuration metadata generated in " + classes
					+ ": is spring-boot-configuration-processor on the annotation processor path?", ex);
		}
	}

}
