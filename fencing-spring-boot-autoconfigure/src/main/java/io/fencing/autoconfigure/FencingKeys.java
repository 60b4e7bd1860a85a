package io.fencing.autoconfigure;

import java.beans.PropertyDescriptor;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import io.fencing.run.FencingStartupException;
import io.fencing.run.NearestNames;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
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
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName.Form;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.context.EnvironmentAware;
import org.springframework.core.env.Environment;
import org.springframework.core.env.PropertySource;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.core.env.SystemEnvironmentPropertySource;

/**
 * Fails the startup on a key under {@code fencing.} that no setting has
 * ({@code fencing.wait-tme}, {@code fencing.tasks.stock-sync.lease-tim}): Boot's binding
 * would ignore it, and the default would apply unnoticed. The message names the key,
 * where it was set, and the nearest setting. Environment variables are not read for this:
 * any variable whose name starts with {@code FENCING_} is one to Boot. An unknown system
 * property is only warned about: build tools pass their own there
 * ({@code -Dfencing.version=0.2.0} reaches every test JVM of a build).
 */
final class FencingKeys implements EnvironmentAware, InitializingBean {

	private static final Log logger = LogFactory.getLog(FencingKeys.class);

	private static final String PREFIX = "fencing";

	/** A task name that needs no brackets. */
	private static final Pattern PLAIN_NAME = Pattern.compile("[a-z0-9-]+");

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
		Set<ConfigurationProperty> unknown = unknown(this.environment,
				(source) -> !isSystemProperties(source) && !isEnvironmentVariables(source));
		if (!unknown.isEmpty()) {
			// The message says all: Boot's own would be the root cause otherwise.
			List<String> settings = settings(PREFIX, FencingProperties.class);
			throw new FencingStartupException(unknownSettings(unknown, settings),
					"Correct the key, or remove it. The fencing settings are: " + settings, null);
		}
		Set<ConfigurationProperty> unknownSystemProperties = unknown(this.environment, FencingKeys::isSystemProperties);
		if (!unknownSystemProperties.isEmpty()) {
			logger.warn(message(unknownSystemProperties, settings(PREFIX, FencingProperties.class))
					+ "\nIgnored, as system properties: a build tool may pass its own there. A setting meant for "
					+ "the starter goes in application.properties, or on the command line as --" + PREFIX + ".<key>");
		}
	}

	/** The keys under {@code fencing.} of the given sources that no setting has. */
	private static Set<ConfigurationProperty> unknown(Environment environment,
			Predicate<ConfigurationPropertySource> checked) {
		try {
			Binder.get(environment)
				.bind(PREFIX, Bindable.of(FencingProperties.class),
						new NoUnboundElementsBindHandler(BindHandler.DEFAULT, checked::test));
		}
		catch (BindException ex) {
			if (ex.getCause() instanceof UnboundConfigurationPropertiesException unbound) {
				// A key left empty is unbound too, and changes nothing.
				return unbound.getUnboundProperties()
					.stream()
					.filter((property) -> !String.valueOf(property.getValue()).isBlank())
					.collect(Collectors.toSet());
			}
			// Any other binding failure is reported by the binding of the settings
			// themselves.
		}
		return Set.of();
	}

	private static boolean isEnvironmentVariables(ConfigurationPropertySource source) {
		return source.getUnderlyingSource() instanceof SystemEnvironmentPropertySource;
	}

	private static boolean isSystemProperties(ConfigurationPropertySource source) {
		return source.getUnderlyingSource() instanceof PropertySource<?> propertySource
				&& StandardEnvironment.SYSTEM_PROPERTIES_PROPERTY_SOURCE_NAME.equals(propertySource.getName());
	}

	private static String message(Set<ConfigurationProperty> unknown, List<String> settings) {
		return unknownSettings(unknown, settings) + "\nThe fencing settings are: " + settings;
	}

	/** One line per unknown key: where it was set, and the nearest setting. */
	private static String unknownSettings(Set<ConfigurationProperty> unknown, List<String> settings) {
		return unknown.stream()
			.sorted(Comparator.comparing((property) -> property.getName().toString()))
			.map((property) -> {
				String origin = (property.getOrigin() != null) ? " (" + property.getOrigin() + ")" : "";
				return "Unknown setting " + property.getName() + origin + ": " + advice(property.getName(), settings);
			})
			.collect(Collectors.joining("\n"));
	}

	/**
	 * The nearest setting; for a task's, keeping the task's name, and asking for brackets
	 * around a name that holds dots, which Boot reads as more levels.
	 */
	private static String advice(ConfigurationPropertyName key, List<String> settings) {
		int elements = key.getNumberOfElements();
		if (elements >= 4 && key.getElement(1, Form.UNIFORM).equals("tasks")) {
			String setting = closest(key.getElement(elements - 1, Form.UNIFORM),
					settings(null, FencingProperties.Task.class));
			List<String> name = new ArrayList<>();
			for (int i = 2; i < elements - 1; i++) {
				name.add(key.getElement(i, Form.ORIGINAL));
			}
			String task = String.join(".", name);
			if (elements > 4) {
				return "a task name with dots is read as more levels: write it in brackets, " + PREFIX + ".tasks["
						+ task + "]." + setting;
			}
			return "did you mean " + PREFIX + ".tasks"
					+ (PLAIN_NAME.matcher(task).matches() ? "." + task : "[" + task + "]") + "." + setting + "?";
		}
		return "did you mean " + closest(key.toString(), settings) + "?";
	}

	private static String closest(String key, List<String> candidates) {
		return NearestNames.nearest(key, candidates).orElse(key);
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

}
