package io.fencing.fence;

import java.lang.reflect.Modifier;
import java.sql.Connection;
import java.sql.SQLException;

import javax.sql.DataSource;

import io.fencing.StaleWriterException;
import io.fencing.observation.FencingEventPublisher;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;

import org.springframework.aop.ProxyMethodInvocation;
import org.springframework.aop.framework.AopConfigException;
import org.springframework.aop.framework.ProxyFactory;
import org.springframework.beans.factory.BeanClassLoaderAware;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.ApplicationEventPublisherAware;
import org.springframework.jdbc.datasource.DelegatingDataSource;
import org.springframework.util.ClassUtils;

/**
 * Hands out every {@link DataSource} bean with connections that carry the writer's token
 * to the database fence. The bean keeps its class (a subclass proxy: an application that
 * injects its {@code HikariDataSource} still gets one); a data source already behind a
 * fenced one (a transaction-aware proxy of it) is left as it is.
 */
final class FencedDataSourcePostProcessor
		implements BeanPostProcessor, BeanClassLoaderAware, ApplicationEventPublisherAware {

	private final boolean unfencedWriters;

	private volatile FencingEventPublisher events = FencingEventPublisher.NONE;

	private @Nullable ClassLoader classLoader = ClassUtils.getDefaultClassLoader();

	/**
	 * @param unfencedWriters whether every statement goes through the fence unchecked
	 * ({@code fencing.enabled=false})
	 */
	FencedDataSourcePostProcessor(boolean unfencedWriters) {
		this.unfencedWriters = unfencedWriters;
	}

	@Override
	public void setBeanClassLoader(ClassLoader classLoader) {
		this.classLoader = classLoader;
	}

	@Override
	public void setApplicationEventPublisher(ApplicationEventPublisher publisher) {
		this.events = new FencingEventPublisher(publisher);
	}

	@Override
	public Object postProcessAfterInitialization(Object bean, String beanName) {
		if (bean instanceof FencedDataSource fenced) {
			fenced.tellStaleWritersTo(this::published);
			return bean;
		}
		if (!(bean instanceof DataSource dataSource) || bean instanceof FencedConnections
				|| fencedAlready(dataSource)) {
			return bean;
		}
		ProxyFactory factory = new ProxyFactory(dataSource);
		factory.addInterface(FencedConnections.class);
		factory.addAdvice(new Fencing(dataSource, new ConnectionFence(this.unfencedWriters, false, this::published)));
		factory.setProxyTargetClass(!Modifier.isFinal(bean.getClass().getModifiers()));
		try {
			return factory.getProxy(this.classLoader);
		}
		catch (AopConfigException | IllegalArgumentException ex) {
			// A class that cannot be subclassed: its interfaces.
			factory.setProxyTargetClass(false);
			return factory.getProxy(this.classLoader);
		}
	}

	/** A stale write the fence refused, whatever library wrote it. */
	private void published(StaleWriterException refusal) {
		String table = FenceRefusals.table(refusal);
		this.events.publishRefusal(this, refusal, (table != null) ? table : "unknown");
	}

	private static boolean fencedAlready(DataSource dataSource) {
		try {
			return dataSource.isWrapperFor(FencedConnections.class);
		}
		catch (SQLException | RuntimeException ex) {
			return false;
		}
	}

	/** Fences the connections the data source hands out. */
	private static final class Fencing implements MethodInterceptor {

		private final DataSource target;

		private final ConnectionFence fence;

		Fencing(DataSource target, ConnectionFence fence) {
			this.target = target;
			this.fence = fence;
		}

		@Override
		public @Nullable Object invoke(MethodInvocation invocation) throws Throwable {
			String name = invocation.getMethod().getName();
			@Nullable Object[] arguments = invocation.getArguments();
			if (name.equals("getConnection")) {
				Connection connection = (Connection) invocation.proceed();
				return (connection != null) ? this.fence.fence(connection) : null;
			}
			if (name.equals("fenceConnections") && arguments.length == 0) {
				this.fence.arm();
				return null;
			}
			if (name.equals("unfencedDataSource") && arguments.length == 0) {
				// Not the target itself, which Spring AOP would hand back as the proxy.
				return new DelegatingDataSource(this.target);
			}
			if ((name.equals("unwrap") || name.equals("isWrapperFor")) && arguments.length == 1
					&& arguments[0] == FencedConnections.class) {
				return name.equals("unwrap") ? ((ProxyMethodInvocation) invocation).getProxy() : Boolean.TRUE;
			}
			return invocation.proceed();
		}

	}

}
