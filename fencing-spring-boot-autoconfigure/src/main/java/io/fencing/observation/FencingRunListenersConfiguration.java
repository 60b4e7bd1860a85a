package io.fencing.observation;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.observation.ObservationRegistry;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.LazyInitializationExcludeFilter;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * What the runs of fenced tasks tell the application, imported by
 * {@code FencingAutoConfiguration} with the runner: each task's activity, the
 * {@code fencing.task} observation, the events and their counters. Internal: public only
 * for that import.
 */
@Configuration(proxyBeanMethods = false)
public final class FencingRunListenersConfiguration {

	/**
	 * What each task has done since startup: a listener of runs, and of refused writes.
	 */
	@Bean
	@ConditionalOnMissingBean
	TaskActivities fencedTaskActivities() {
		return new TaskActivities();
	}

	/** Runs observed as {@code fencing.task}, when there is an observation registry. */
	@Bean
	@ConditionalOnMissingBean
	ObservedRuns fencedTaskObservations(ObjectProvider<ObservationRegistry> observations,
			ObjectProvider<FencedTaskObservationConvention> observationConvention) {
		return new ObservedRuns(observations.getIfAvailable(() -> ObservationRegistry.NOOP),
				observationConvention.getIfAvailable());
	}

	/** Lost leases published as application events. */
	@Bean
	@ConditionalOnMissingBean
	RunEvents fencedTaskRunEvents(ApplicationEventPublisher events) {
		return new RunEvents(new FencingEventPublisher(events));
	}

	/** Counts the fencing events when the application has Micrometer. */
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(MeterRegistry.class)
	static class EventCountersConfiguration {

		@Bean
		@ConditionalOnMissingBean
		FencingEventCounters fencingEventCounters(ObjectProvider<MeterRegistry> registry) {
			return new FencingEventCounters(registry);
		}

		/**
		 * The counters exist at zero from startup, also with lazy initialization, so that
		 * the first lost lease alerts.
		 */
		@Bean
		static LazyInitializationExcludeFilter fencingEventCountersLazyInitializationExcludeFilter() {
			return LazyInitializationExcludeFilter.forBeanTypes(FencingEventCounters.class);
		}

	}

}
