package io.fencing.sample.replay;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import io.fencing.sample.replay.ReplayEvent.Kind;
import io.fencing.sample.replay.ReplayEvent.Owner;

/**
 * A replay drawn as two swimlanes, A and B, with time going down (so that it fits a
 * phone): one row per event, with its time, a mark and a label that says in words what
 * the mark's shape and colour say; beside each lane, the owner's hold of the lock as a
 * bar, solid while its lease runs and dashed once the lease has expired and the owner
 * still runs. The template only places what this computes, in SVG units.
 *
 * @param width the drawing's width
 * @param height the drawing's height
 * @param lanes the two lanes
 * @param rows one per event, top to bottom
 * @param bars each owner's hold of the lock
 */
public record TimelineDrawing(int width, int height, List<Lane> lanes, List<Row> rows, List<Bar> bars) {

	private static final int WIDTH = 408;

	private static final int TIME_COLUMN = 60;

	private static final int LANE_WIDTH = (WIDTH - TIME_COLUMN) / 2;

	private static final int HEADER = 40;

	private static final int LINE_HEIGHT = 17;

	private static final int ROW_PADDING = 14;

	private static final int LANE_LABEL_CHARS = 18;

	private static final int WIDE_LABEL_CHARS = 48;

	/**
	 * One swimlane.
	 *
	 * @param x its left edge
	 * @param width its width
	 * @param title its heading
	 */
	public record Lane(Owner owner, int x, int width, String title) {
	}

	/**
	 * One event.
	 *
	 * @param y its top
	 * @param owner the worker it happened to
	 * @param time when it happened, {@code t=2.05s}
	 * @param kind what happened, lower case: the mark's style
	 * @param markX the centre of its mark
	 * @param markY the centre of its mark
	 * @param glyph the mark's symbol, so that shapes differ without colour
	 * @param textX where its label begins
	 * @param label its label, one entry per line
	 * @param spansLanes whether it concerns both lanes (a lease ending)
	 */
	public record Row(int y, Owner owner, String time, String kind, int markX, int markY, String glyph, int textX,
			List<String> label, boolean spansLanes) {
	}

	/**
	 * A part of an owner's hold of the lock.
	 *
	 * @param x its left edge
	 * @param y its top
	 * @param height its length
	 * @param expired whether the owner's lease had expired (it still ran)
	 */
	public record Bar(int x, int y, int height, boolean expired) {
	}

	/** Draws a replay. */
	public static TimelineDrawing of(ReplayResult replay) {
		List<Lane> lanes = List.of(new Lane(Owner.A, laneX(Owner.A), LANE_WIDTH, "A: first owner"),
				new Lane(Owner.B, laneX(Owner.B), LANE_WIDTH, "B: takes over"));
		List<Row> rows = new ArrayList<>();
		int y = HEADER;
		for (ReplayEvent event : replay.events()) {
			boolean spansLanes = event.kind() == Kind.LEASE_EXPIRED;
			List<String> label = wrap(label(event), spansLanes ? WIDE_LABEL_CHARS : LANE_LABEL_CHARS);
			int markX = laneX(event.owner()) + 14;
			rows.add(new Row(y, event.owner(), String.format(Locale.ROOT, "t=%.2fs", event.atMillis() / 1000.0),
					event.kind().name().toLowerCase(Locale.ROOT).replace('_', '-'), markX, y + 10, glyph(event.kind()),
					markX + 14, label, spansLanes));
			y += label.size() * LINE_HEIGHT + ROW_PADDING;
		}
		return new TimelineDrawing(WIDTH, y, lanes, rows, bars(replay.events(), rows, y));
	}

	private static int laneX(Owner owner) {
		return TIME_COLUMN + owner.ordinal() * LANE_WIDTH;
	}

	/** From each ACQUIRED to the owner's next ENDED, dashed after its lease expired. */
	private static List<Bar> bars(List<ReplayEvent> events, List<Row> rows, int bottom) {
		List<Bar> bars = new ArrayList<>();
		for (Owner owner : Owner.values()) {
			int start = -1;
			int expiredAt = -1;
			for (int i = 0; i < events.size(); i++) {
				ReplayEvent event = events.get(i);
				if (event.owner() != owner) {
					continue;
				}
				int markY = rows.get(i).markY();
				switch (event.kind()) {
					case ACQUIRED -> {
						start = markY;
						expiredAt = -1;
					}
					case LEASE_EXPIRED -> expiredAt = markY;
					case ENDED -> {
						addBars(bars, owner, start, expiredAt, markY);
						start = -1;
					}
					default -> {
					}
				}
			}
			// Still held when the replay ended.
			addBars(bars, owner, start, expiredAt, bottom);
		}
		return bars;
	}

	private static void addBars(List<Bar> bars, Owner owner, int start, int expiredAt, int end) {
		if (start < 0) {
			return;
		}
		int x = laneX(owner) + 10;
		int leaseEnd = (expiredAt >= start) ? Math.min(expiredAt, end) : end;
		bars.add(new Bar(x, start, leaseEnd - start, false));
		if (leaseEnd < end) {
			bars.add(new Bar(x, leaseEnd, end - leaseEnd, true));
		}
	}

	private static String label(ReplayEvent event) {
		return switch (event.kind()) {
			case ACQUIRED -> "took stock-sync, token " + event.token();
			case BUSY -> "tried stock-sync: busy, run skipped";
			case LEASE_EXPIRED -> event.owner() + "'s lease expired (token " + event.token() + "); " + event.owner()
					+ " is paused and still runs";
			case WROTE -> "wrote stock " + event.quantity() + " with token " + event.token() + ": accepted";
			case REFUSED -> "wrote stock " + event.quantity() + " with token " + event.token() + ": refused, "
					+ ((event.acceptedToken() != null)
							? "token " + event.token() + " is older than accepted token " + event.acceptedToken()
							: "a newer token was accepted");
			case ENDED -> "run ended (token " + event.token() + ")";
		};
	}

	private static String glyph(Kind kind) {
		return switch (kind) {
			case ACQUIRED -> "+";
			case BUSY -> "–";
			case LEASE_EXPIRED -> "!";
			case WROTE -> "✓";
			case REFUSED -> "✗";
			case ENDED -> "■";
		};
	}

	/** Greedy word wrap. */
	private static List<String> wrap(String text, int width) {
		List<String> lines = new ArrayList<>();
		StringBuilder line = new StringBuilder();
		for (String word : text.split(" ")) {
			if (line.length() > 0 && line.length() + 1 + word.length() > width) {
				lines.add(line.toString());
				line.setLength(0);
			}
			if (line.length() > 0) {
				line.append(' ');
			}
			line.append(word);
		}
		lines.add(line.toString());
		return lines;
	}

}
