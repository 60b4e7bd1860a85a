package io.fencing.sample;

import io.fencing.test.AutoConfigureInMemoryFencing;
import io.fencing.test.InMemoryFencedLocks;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Import;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The job as a unit, without Redis: its lock is one of the test kit's in-JVM locks. A run
 * paused past its lease while a newer run applies the feed stops at its first refused
 * write, and the newer run's stock stands.
 */
@SpringBootTest(classes = StockSyncJobTests.JobOnly.class, properties = "spring.data.redis.url=redis://127.0.0.1:1")
@AutoConfigureInMemoryFencing
@ExtendWith(OutputCaptureExtension.class)
class StockSyncJobTests {

	@Autowired
	private StockSyncJob job;

	@Autowired
	private StockRepository stock;

	@Autowired
	private InMemoryFencedLocks locks;

	@Test
	void aRunPausedPastItsLeaseStopsAtItsFirstRefusedWrite(CapturedOutput output) {
		this.locks.pauseNextOwner("stock-sync", this.job::sync);
		this.job.sync();
		long newer = this.locks.lastToken("stock-sync");
		assertThat(this.stock.find("A-1").lastToken()).isEqualTo(newer);
		assertThat(output).contains("stock-sync applied the feed with token " + newer)
			.contains("stock-sync stopped: ")
			.contains("token " + (newer - 1) + " is older than accepted token " + newer);
	}

	/** The job and what it writes with, without the rest of the sample. */
	@SpringBootConfiguration
	@EnableAutoConfiguration
	@Import({ StockSyncJob.class, StockRepository.class, SupplierFeed.class })
	static class JobOnly {

	}

}
