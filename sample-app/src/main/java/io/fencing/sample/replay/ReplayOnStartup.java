package io.fencing.sample.replay;

import org.springframework.boot.ApplicationArguments;
import org.springframework.boot.ApplicationRunner;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.stereotype.Component;

/**
 * Replays the timeline once the application has started
 * ({@code stock.replay.on-startup}).
 */
@Component
@ConditionalOnBooleanProperty("stock.replay.on-startup")
class ReplayOnStartup implements ApplicationRunner {

	private final TimelineReplay replay;

	ReplayOnStartup(TimelineReplay replay) {
		this.replay = replay;
	}

	@Override
	public void run(ApplicationArguments args) {
		this.replay.run();
	}

}
