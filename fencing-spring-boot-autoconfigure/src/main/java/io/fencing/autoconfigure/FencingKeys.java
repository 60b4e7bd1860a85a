package io.fencing.autoconfigure;

import java.beans.PropertyDescriptor;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

import org.jspecify.annotations.Nullable;

import org.springframework.beans.BeanUtils;
import org.springframework.beans.factory.InitializingBean;
import org.springframework.boot.context.properties.bind.BindException;
import org.springframework.boot.context.properties.bind.BindHandler;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.bind.UnboundConfigurationPropertiesException;
import org.springframework.boot.context.properties.bind.handler.NoUnboundElementsBindHandler;
import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.context.EnvironmentAware;
import org.springframework.core.env.Environment;
import org.springframework.core.env.SystemEnvironmentPropertySource;

/**
 * Fails the startup on a key under {@code fencing.} that no setting has
 * ({@code fencing.wait-tme}, {@code fencing.tasks.stock-sync.lease-tim}): Boot's binding
 * would ignore it, and the default would apply unnoticed. The message names the key,
 * where it was set, and the nearest setting. Environment variables are not read for this:
 * any variable whose name starts with {@code FENCING_} is one to Boot.
 */
final class FencingKeys implements EnvironmentAware, InitializingBean {

	private static final String PREFIX = "fencing";

	private @Nullable Environment environment;

	@Override
	public void setEnvironment(Environment environment) {
		this.environment = environment;
	}

	@Override
	public void afterPropertiesSet() {
		if (this.environment == null) {
			return;
		}
		try {
			Binder.get(this.environment)
				.bind(PREFIX, Bindable.of(FencingProperties.class),
						new NoUnboundElementsBindHandler(BindHandler.DEFAULT, FencingKeys::isChecked));
		}
		catch (BindException ex) {
			if (ex.getCause() instanceof UnboundConfigurationPropertiesException unbound) {
				// A setting left empty is unbound too: only keys no setting has.
				List<String> settings = settings(PREFIX, FencingProperties.class);
				Set<ConfigurationProperty> unknown = unbound.getUnboundProperties()
					.stream()
					.filter((property) -> !isSetting(property.getName().toString(), settings))
					.collect(Collectors.toSet());
				if (!unknown.isEmpty()) {
					// The message says all: Boot's own would be the root cause otherwise.
					throw new IllegalStateException(message(unknown, settings));
				}
			}
			// Any other binding failure is reported by the binding of the settings
			// themselves.
		}
	}

	private static boolean isChecked(ConfigurationPropertySource source) {
		return !(source.getUnderlyingSource() instanceof SystemEnvironmentPropertySource);
	}

	private static boolean isSetting(String key, List<String> settings) {
		String tasks = PREFIX + ".tasks.";
		if (key.startsWith(tasks) && key.indexOf('.', tasks.length()) > 0) {
			return settings(null, FencingProperties.Task.class)
				.contains(key.substring(key.indexOf('.', tasks.length()) + 1));
		}
		return settings.contains(key);
	}

	private static String message(Set<ConfigurationProperty> unknown, List<String> settings) {
		return unknown.stream()
			.sorted(Comparator.comparing((property) -> property.getName().toString()))
			.map((property) -> {
				String key = property.getName().toString();
				String origin = (property.getOrigin() != null) ? " (" + property.getOrigin() + ")" : "";
				return "Unknown setting " + key + origin + ": did you mean " + nearest(key, settings) + "?";
			})
			.collect(Collectors.joining("\n", "", "\nThe fencing settings are: " + settings));
	}

	/** The nearest setting, a task's own keeping the task's name. */
	private static String nearest(String key, List<String> settings) {
		String tasks = PREFIX + ".tasks.";
		if (key.startsWith(tasks) && key.indexOf('.', tasks.length()) > 0) {
			String task = key.substring(0, key.indexOf('.', tasks.length()) + 1);
			String setting = key.substring(task.length());
			return task + closest(setting, settings(null, FencingProperties.Task.class));
		}
		return closest(key, settings);
	}

	private static String closest(String key, List<String> candidates) {
		return candidates.stream().min(Comparator.comparingInt((candidate) -> distance(key, candidate))).orElse(key);
	}

	/** The leaf settings of {@code type}, as written in configuration. */
	private static List<String> settings(@Nullable String prefix, Class<?> type) {
		List<String> settings = new ArrayList<>();
		for (PropertyDescriptor property : BeanUtils.getPropertyDescriptors(type)) {
			if (property.getReadMethod() == null || property.getName().equals("class")) {
				continue;
			}
			String name = ((prefix != null) ? prefix + "." : "")
					+ property.getName().replaceAll("([a-z0-9])([A-Z])", "$1-$2").toLowerCase(java.util.Locale.ROOT);
			Class<?> propertyType = property.getPropertyType();
			if (Map.class.isAssignableFrom(propertyType)) {
				settings(name + ".<name>", FencingProperties.Task.class).forEach(settings::add);
			}
			else if (propertyType.getEnclosingClass() == FencingProperties.class && !propertyType.isEnum()) {
				settings.addAll(settings(name, propertyType));
			}
			else {
				settings.add(name);
			}
		}
		return settings;
	}

	/** Edit distance (Levenshtein). */
	private static int distance(String a, String b) {
		int[] previous = new int[b.length() + 1];
		int[] current = new int[b.length() + 1];
		for (int j = 0; j <= b.length(); j++) {
			previous[j] = j;
		}
		for (int i = 1; i <= a.length(); i++) {
			current[0] = i;
			for (int j = 1; j <= b.length(); j++) {
				int substitution = previous[j - 1] + ((a.charAt(i - 1) == b.charAt(j - 1)) ? 0 : 1);
				current[j] = Math.min(substitution, Math.min(previous[j], current[j - 1]) + 1);
			}
			int[] swap = previous;
			previous = current;
			current = swap;
		}
		return previous[b.length()];
	}

}
