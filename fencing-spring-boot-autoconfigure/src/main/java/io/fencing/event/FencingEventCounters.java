package io.fencing.event;

import io.fencing.FencingEvent;
import io.fencing.LeaseLostEvent;
import io.fencing.StaleWriteRefusedEvent;
import io.fencing.TokenCounterRepairedEvent;
import io.micrometer.core.instrument.MeterRegistry;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.context.ApplicationListener;

/**
 * Counts the {@link FencingEvent}s in the application's {@link MeterRegistry}, when it
 * has one: {@code fencing.leases.lost} (tag {@code overrun}),
 * {@code fencing.writes.refused} (tag {@code table}) and
 * {@code fencing.token.counters.repaired}. Lock names are left out of the tags:
 * per-entity names would make one series each.
 */
public class FencingEventCounters implements ApplicationListener<FencingEvent> {

	private final ObjectProvider<MeterRegistry> registry;

	public FencingEventCounters(ObjectProvider<MeterRegistry> registry) {
		this.registry = registry;
	}

	@Override
	public void onApplicationEvent(FencingEvent event) {
		MeterRegistry meters = this.registry.getIfUnique();
		if (meters == null) {
			return;
		}
		if (event instanceof LeaseLostEvent lost) {
			meters.counter("fencing.leases.lost", "overrun", String.valueOf(lost.isOverrun())).increment();
		}
		else if (event instanceof StaleWriteRefusedEvent refused) {
			meters.counter("fencing.writes.refused", "table", refused.getTable()).increment();
		}
		else if (event instanceof TokenCounterRepairedEvent) {
			meters.counter("fencing.token.counters.repaired").increment();
		}
	}

}
