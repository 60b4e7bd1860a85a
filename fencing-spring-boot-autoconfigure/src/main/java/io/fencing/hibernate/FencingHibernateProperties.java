package io.fencing.hibernate;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.BiConsumer;
import java.util.function.Supplier;

import io.fencing.StaleWriterException;

import org.hibernate.Interceptor;
import org.hibernate.cfg.AvailableSettings;
import org.hibernate.integrator.spi.Integrator;
import org.hibernate.jpa.boot.spi.IntegratorProvider;
import org.hibernate.jpa.boot.spi.JpaSettings;
import org.hibernate.resource.jdbc.spi.StatementInspector;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.BeanUtils;
import org.springframework.util.ClassUtils;

/**
 * Installs the fence in the Hibernate properties of an entity manager factory: the
 * interceptor, the statement inspector and the integrator of this package, each wrapping
 * what the application set there (an instance, a class or a class name), so that its own
 * interceptor, inspector and integrators keep working.
 */
final class FencingHibernateProperties {

	private static final Interceptor NO_INTERCEPTOR = new Interceptor() {
	};

	private final @Nullable ClassLoader classLoader;

	private final BiConsumer<StaleWriterException, String> refusals;

	FencingHibernateProperties(@Nullable ClassLoader classLoader, BiConsumer<StaleWriterException, String> refusals) {
		this.classLoader = classLoader;
		this.refusals = refusals;
	}

	void install(Map<String, Object> properties) {
		Object interceptor = properties.get(AvailableSettings.INTERCEPTOR);
		Object sessionScoped = properties.get(AvailableSettings.SESSION_SCOPED_INTERCEPTOR);
		if (interceptor == null && sessionScoped != null) {
			// A factory-wide interceptor would replace the application's per-session one.
			properties.put(AvailableSettings.SESSION_SCOPED_INTERCEPTOR, sessionScopedInterceptor(sessionScoped));
		}
		else if (!(interceptor instanceof FencingInterceptor)) {
			properties.put(AvailableSettings.INTERCEPTOR,
					new FencingInterceptor(instance(interceptor, Interceptor.class, NO_INTERCEPTOR)));
		}
		Object inspector = properties.get(AvailableSettings.STATEMENT_INSPECTOR);
		if (!(inspector instanceof FencingStatementInspector)) {
			properties.put(AvailableSettings.STATEMENT_INSPECTOR, new FencingStatementInspector(
					instance(inspector, StatementInspector.class, StatementInspector.NONE)));
		}
		IntegratorProvider integrators = instance(properties.get(JpaSettings.INTEGRATOR_PROVIDER),
				IntegratorProvider.class, List::of);
		properties.put(JpaSettings.INTEGRATOR_PROVIDER, (IntegratorProvider) () -> {
			List<Integrator> all = new ArrayList<>(integrators.getIntegrators());
			all.add(new FencingIntegrator(this.refusals));
			return all;
		});
	}

	@SuppressWarnings("unchecked")
	private Supplier<Interceptor> sessionScopedInterceptor(Object setting) {
		if (setting instanceof Supplier<?> supplier) {
			return new SessionScopedInterceptor(() -> (Interceptor) supplier.get());
		}
		Class<? extends Interceptor> type = (setting instanceof Class<?> given) ? (Class<? extends Interceptor>) given
				: (Class<? extends Interceptor>) ClassUtils.resolveClassName(setting.toString(), this.classLoader);
		return new SessionScopedInterceptor(() -> BeanUtils.instantiateClass(type));
	}

	/** A new {@link FencingInterceptor} per session, around the application's. */
	record SessionScopedInterceptor(Supplier<Interceptor> application) implements Supplier<Interceptor> {

		@Override
		public Interceptor get() {
			return new FencingInterceptor(this.application.get());
		}

	}

	/** The setting's instance: itself, or a new instance of the class it is or names. */
	private <T> T instance(@Nullable Object setting, Class<T> type, T fallback) {
		if (setting == null) {
			return fallback;
		}
		if (type.isInstance(setting)) {
			return type.cast(setting);
		}
		Class<?> implementation = (setting instanceof Class<?> given) ? given
				: ClassUtils.resolveClassName(setting.toString(), this.classLoader);
		return type.cast(BeanUtils.instantiateClass(implementation));
	}

}
