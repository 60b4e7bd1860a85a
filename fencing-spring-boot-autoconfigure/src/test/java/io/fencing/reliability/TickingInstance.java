package io.fencing.reliability;

import java.io.IOException;
import java.time.Clock;
import java.time.Duration;

import io.fencing.FencedTask;
import io.fencing.autoconfigure.FencingAutoConfiguration;

import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler;

/**
 * A child JVM of {@link OncePerTickProcessTests}: an instance of an application whose
 * cron job runs every two seconds, fenced with a minimum hold, on a clock that is
 * {@code skew} behind the machine's (so its ticks fire that much later, as an instance
 * whose clock is behind does). Prints {@value #READY} once scheduling, and {@value #RAN}
 * with the wall-clock time of each run's start; runs until killed.
 */
public final class TickingInstance {

	static final String READY = "READY";

	static final String RAN = "RAN ";

	private TickingInstance() {
	}

	/** Arguments: Redis URL, lock name, clock skew in ms, minimum hold in ms. */
	public static void main(String[] args) throws IOException {
		ConfigurableApplicationContext context = new SpringApplicationBuilder(InstanceConfiguration.class)
			.web(WebApplicationType.NONE)
			.properties("spring.main.banner-mode=off", "logging.level.root=WARN", "spring.data.redis.url=" + args[0],
					"instance.lock=" + args[1], "instance.skew=" + args[2], "instance.hold=" + args[3] + "ms")
			.run();
		context.registerShutdownHook();
		System.out.println(READY);
		// Until the test JVM closes its end (it stopped, or died): never an orphan.
		while (System.in.read() != -1) {
			// Nothing is sent.
		}
		context.close();
		System.exit(0);
	}

	@Configuration(proxyBeanMethods = false)
	@EnableScheduling
	@ImportAutoConfiguration({ AopAutoConfiguration.class, DataRedisAutoConfiguration.class,
			FencingAutoConfiguration.class })
	static class InstanceConfiguration {

		@Bean
		ThreadPoolTaskScheduler taskScheduler(org.springframework.core.env.Environment environment) {
			ThreadPoolTaskScheduler scheduler = new ThreadPoolTaskScheduler();
			long skew = environment.getRequiredProperty("instance.skew", Long.class);
			scheduler.setClock(Clock.offset(Clock.systemDefaultZone(), Duration.ofMillis(-skew)));
			return scheduler;
		}

		@Bean
		Job job() {
			return new Job();
		}

	}

	static class Job {

		@Scheduled(cron = "*/2 * * * * *")
		@FencedTask(value = "${instance.lock}", holdAtLeast = "${instance.hold}")
		public void tick() {
			System.out.println(RAN + System.currentTimeMillis());
		}

	}

}
