package io.fencing.sample;

import java.util.List;

import io.fencing.sample.replay.TimelineReplay;

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

	@PostMapping("/replay")
	public List<String> replay() {
		return this.replay.run().lines();
	}

}
