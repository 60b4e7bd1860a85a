package io.fencing.fence;

import javax.sql.DataSource;

import org.springframework.beans.factory.config.BeanPostProcessor;

/**
 * Hands out every {@link DataSource} bean as a {@link FencedDataSource}, so that each
 * connection the application uses carries the writer's token to the database fence.
 */
public final class FencedDataSourcePostProcessor implements BeanPostProcessor {

	@Override
	public Object postProcessAfterInitialization(Object bean, String beanName) {
		if (bean instanceof DataSource dataSource && !(bean instanceof FencedDataSource)) {
			return new FencedDataSource(dataSource);
		}
		return bean;
	}

}
