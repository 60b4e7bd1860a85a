package io.fencing.sample;

import java.util.List;
import java.util.concurrent.CompletableFuture;

import io.fencing.sample.replay.ReplayResult;
import io.fencing.sample.replay.TimelineReplay;

import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * Lets a person watch quantities and tokens while the job runs, and replay the timeline.
 */
@RestController
public class StockController {

	private final StockRepository stock;

	private final TimelineReplay replay;

	public StockController(StockRepository stock, TimelineReplay replay) {
		this.stock = stock;
		this.replay = replay;
	}

	@GetMapping("/stock")
	public List<Stock> stock() {
		return this.stock.findAll();
	}

	/**
	 * Replays the timeline, or joins the replay running: its events, printed steps and
	 * outcome. Answered asynchronously, so that no request thread waits out the replay.
	 */
	@PostMapping("/replay")
	public CompletableFuture<ReplayResult> replay() {
		return this.replay.start();
	}

	/** A replay whose worker could not take the lock in time: say why. */
	@ExceptionHandler(IllegalStateException.class)
	public ProblemDetail replayFailed(IllegalStateException ex) {
		return ProblemDetail.forStatusAndDetail(HttpStatus.SERVICE_UNAVAILABLE, ex.getMessage());
	}

	/** The last replay, what the page at {@code /} draws; 404 before the first. */
	@GetMapping("/replay")
	public ResponseEntity<ReplayResult> lastReplay() {
		return ResponseEntity.of(this.replay.last());
	}

}
