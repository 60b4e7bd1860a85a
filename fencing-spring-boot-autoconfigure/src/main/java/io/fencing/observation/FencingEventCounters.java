package io.fencing.observation;

import io.fencing.FencingEvent;
import io.fencing.LeaseLostEvent;
import io.fencing.OperationReplayedEvent;
import io.fencing.StaleWriteRefusedEvent;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.context.ApplicationListener;
import org.springframework.core.Ordered;

/**
 * Counts the {@link FencingEvent}s in the application's {@link MeterRegistry}, when it
 * has one: {@code fencing.leases.lost} (tag {@code overrun}), there from startup at zero
 * so that the first one alerts, {@code fencing.writes.refused} (tag {@code table}, from a
 * table's first refusal) and {@code fencing.operations.replayed} (from the first replay).
 * Lock names are left out of the tags: per-entity names would make one series each.
 * <p>
 * Counts first of all listeners: Spring stops at a listener that throws, and an
 * application's failing alert must not keep an event from being counted.
 */
class FencingEventCounters implements ApplicationListener<FencingEvent>, SmartInitializingSingleton, Ordered {

	private final ObjectProvider<MeterRegistry> registry;

	FencingEventCounters(ObjectProvider<MeterRegistry> registry) {
		this.registry = registry;
	}

	@Override
	public void afterSingletonsInstantiated() {
		MeterRegistry meters = this.registry.getIfUnique();
		if (meters != null) {
			leasesLost(meters, true);
			leasesLost(meters, false);
		}
	}

	@Override
	public void onApplicationEvent(FencingEvent event) {
		MeterRegistry meters = this.registry.getIfUnique();
		if (meters == null) {
			return;
		}
		if (event instanceof LeaseLostEvent lost) {
			leasesLost(meters, lost.isOverrun()).increment();
		}
		else if (event instanceof StaleWriteRefusedEvent refused) {
			Counter.builder("fencing.writes.refused")
				.description("Guarded writes the storage refused: a row held a newer token")
				.tag("table", refused.getTable())
				.register(meters)
				.increment();
		}
		else if (event instanceof OperationReplayedEvent) {
			Counter.builder("fencing.operations.replayed")
				.description("Operations presented again and not applied again: their recorded result was returned")
				.register(meters)
				.increment();
		}
	}

	@Override
	public int getOrder() {
		return Ordered.HIGHEST_PRECEDENCE;
	}

	private static Counter leasesLost(MeterRegistry meters, boolean overrun) {
		return Counter.builder("fencing.leases.lost")
			.description("Fenced runs that outlived their lease, or found their lock gone before it ended")
			.tag("overrun", String.valueOf(overrun))
			.register(meters);
	}

}
