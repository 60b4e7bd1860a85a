package io.fencing.sample.replay;

import io.fencing.sample.StockRepository;

import org.springframework.stereotype.Controller;
import org.springframework.ui.Model;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.servlet.support.ServletUriComponentsBuilder;

/**
 * The page at {@code /}: the last replay drawn as a timeline, server-rendered so that it
 * reads without JavaScript, and the stock table. Its script adds the Replay button and
 * refreshes the table.
 */
@Controller
class TimelinePage {

	private final TimelineReplay replay;

	private final StockRepository stock;

	TimelinePage(TimelineReplay replay, StockRepository stock) {
		this.replay = replay;
		this.stock = stock;
	}

	@GetMapping("/")
	String timeline(Model model) {
		this.replay.last().ifPresent((last) -> {
			model.addAttribute("replay", last);
			model.addAttribute("drawing", TimelineDrawing.of(last));
		});
		model.addAttribute("stock", this.stock.findAll());
		// For the text without JavaScript: this page's own address, not a default one.
		model.addAttribute("replayUrl",
				ServletUriComponentsBuilder.fromCurrentContextPath().path("/replay").toUriString());
		return "timeline";
	}

}
