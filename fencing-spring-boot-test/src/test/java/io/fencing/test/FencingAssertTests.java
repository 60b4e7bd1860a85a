package io.fencing.test;

import java.util.concurrent.atomic.AtomicReference;

import io.fencing.FencedTasks;
import io.fencing.FencingContext;
import io.fencing.FencingToken;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * {@link FencingAssert} in a Boot test with {@link AutoConfigureInMemoryFencing}: the
 * whole application, its fenced tasks on in-JVM locks, and no Redis (its address is a
 * closed port).
 */
@SpringBootTest(properties = "spring.data.redis.url=redis://127.0.0.1:1")
@AutoConfigureInMemoryFencing
class FencingAssertTests {

	@Autowired
	private FencedTasks tasks;

	@Autowired
	private InMemoryFencedLocks locks;

	@Test
	void insideAFencedTaskTheTokenIsReturned() {
		AtomicReference<FencingToken> asserted = new AtomicReference<>();
		AtomicReference<FencingToken> ofTheLock = new AtomicReference<>();
		this.tasks.run("assert-outer", (outer) -> this.tasks.run("assert-inner", (inner) -> {
			asserted.set(FencingAssert.assertFenced());
			ofTheLock.set(FencingAssert.assertFenced("assert-outer"));
		}));
		assertThat(asserted.get()).isEqualTo(new FencingToken("assert-inner", this.locks.lastToken("assert-inner")));
		assertThat(ofTheLock.get()).isEqualTo(new FencingToken("assert-outer", this.locks.lastToken("assert-outer")));
	}

	@Test
	void outsideAFencedTaskTheAssertionFailsNamingTheThread() {
		assertThatExceptionOfType(AssertionError.class).isThrownBy(FencingAssert::assertFenced)
			.withMessage("Expected to run inside a fenced task, but no fencing token is bound to thread '"
					+ Thread.currentThread().getName() + "'");
		FencingAssert.assertNotFenced();
	}

	@Test
	void theWrongLockFailsNamingTheBoundOnes() {
		this.tasks.run("assert-bound", (token) -> {
			assertThatExceptionOfType(AssertionError.class).isThrownBy(() -> FencingAssert.assertFenced("other"))
				.withMessageContaining("of lock 'other', but only [" + token + "] are bound");
			assertThatExceptionOfType(AssertionError.class).isThrownBy(FencingAssert::assertNotFenced)
				.withMessageContaining("[" + token + "] are bound");
		});
	}

	@Test
	void afterItsTaskEndedACarriedTokenNoLongerCounts() throws Exception {
		AtomicReference<Runnable> carried = new AtomicReference<>();
		this.tasks.run("assert-carried",
				(token) -> carried.set(FencingContext.wrap((Runnable) FencingAssert::assertFenced)));
		Thread late = new Thread(carried.get());
		AtomicReference<Throwable> failure = new AtomicReference<>();
		late.setUncaughtExceptionHandler((thread, ex) -> failure.set(ex));
		late.start();
		late.join();
		assertThat(failure.get()).isInstanceOf(AssertionError.class);
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	static class Application {

	}

}
