package io.fencing.jpa;

import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import org.hibernate.boot.Metadata;
import org.hibernate.boot.spi.BootstrapContext;
import org.hibernate.engine.spi.SessionFactoryImplementor;
import org.hibernate.integrator.spi.Integrator;
import org.hibernate.jpa.boot.spi.IntegratorProvider;

/**
 * An application's own integrators, named by class in its Hibernate properties: counts
 * the session factories it was integrated into.
 */
public class RecordingIntegratorProvider implements IntegratorProvider {

	private static final AtomicInteger integrated = new AtomicInteger();

	@Override
	public List<Integrator> getIntegrators() {
		return List.of(new Integrator() {

			@Override
			public void integrate(Metadata metadata, BootstrapContext bootstrapContext,
					SessionFactoryImplementor sessionFactory) {
				integrated.incrementAndGet();
			}

		});
	}

	static int integrated() {
		return integrated.get();
	}

}
