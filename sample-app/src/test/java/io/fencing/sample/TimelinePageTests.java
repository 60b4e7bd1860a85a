package io.fencing.sample;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import io.fencing.sample.replay.ReplayEvent.Kind;
import io.fencing.sample.replay.ReplayEvent.Owner;
import io.fencing.sample.replay.ReplayResult;
import io.fencing.sample.replay.TimelineReplay;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.Dimension;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.WebDriverWait;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.web.client.RestClient;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The timeline page at {@code /} in a real browser: Debian's headless Chromium, driven by
 * Selenium through its chromedriver. The sample replays the timeline on startup and its
 * job runs every 300 ms. The picture in docs/sample-app.md is the screenshot this test
 * saves.
 */
@SpringBootTest(classes = { SampleApplication.class, IsolatedRedisConfiguration.class },
		webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = { "stock.replay.on-startup=true", "stock.sync.initial-delay=0s", "stock.sync.every=300ms" })
class TimelinePageTests {

	private static final Duration REPLAY_TIMEOUT = Duration.ofSeconds(60);

	private static final Path SCREENSHOT = Path.of("target", "timeline.png");

	private static ChromeDriver browser;

	@LocalServerPort
	private int port;

	@Autowired
	private TimelineReplay replay;

	@Autowired
	private StockRepository stock;

	@BeforeAll
	static void startBrowser() {
		browser = Chromium.start(true);
	}

	@AfterAll
	static void stopBrowser() {
		if (browser != null) {
			browser.quit();
		}
	}

	@Test
	void replayRedrawsTheTimelineWithTheRefusedWriteAndBothOutcomes() throws IOException {
		browser.manage().window().setSize(new Dimension(1000, 1200));
		browser.get(page());
		int shown = replayNumber(browser);
		assertThat(shown).as("the startup replay is drawn").isPositive();

		browser.findElement(By.id("replay-button")).click();
		new WebDriverWait(browser, REPLAY_TIMEOUT)
			.withMessage(() -> "no new drawing; status: " + browser.findElement(By.id("replay-status")).getText())
			.until((driver) -> replayNumber(browser) > shown);

		ReplayResult last = this.replay.last().orElseThrow();
		assertThat(replayNumber(browser)).isEqualTo(last.number());
		assertThat(browser.findElement(By.id("replay-status")).getText())
			.isEqualTo("Replay " + last.number() + " drawn.");
		assertThat(events(browser))
			.startsWith("A acquired", "B busy", "A lease-expired", "B acquired", "B wrote", "A refused", "B wrote")
			.containsOnlyOnce("A ended", "B ended")
			.hasSize(9);
		assertThat(label(browser, "A", "refused")).isEqualTo("wrote stock 5 with token " + last.tokenA()
				+ ": refused, token " + last.tokenA() + " is older than accepted token " + last.tokenB());
		assertThat(label(browser, "B", "acquired")).isEqualTo("took stock-sync, token " + last.tokenB());
		assertThat(labels(browser, "B", "wrote")).containsExactly(
				"wrote stock 8 with token " + last.tokenB() + ": accepted",
				"wrote stock 9 with token " + last.tokenB() + ": accepted");
		assertThat(label(browser, "A", "lease-expired")).startsWith("A's lease expired (token " + last.tokenA());
		assertThat(outcome(browser, "fenced")).containsExactly("9", String.valueOf(last.tokenB()), "9", "9");
		assertThat(browser.findElement(By.cssSelector("#timeline .result.fenced .elsewhere")).getText())
			.contains("A's late writes were refused there too (the shop answered 409)");
		assertThat(outcome(browser, "unfenced")).containsExactly("5");
		assertThat(outcome(browser, "redelivered")).containsExactly("8", "6");
		assertThat(browser.findElement(By.cssSelector("#timeline .result.redelivered")).getText())
			.contains("already applied, nothing changed");
		assertThat(labelsOutsideTheirLane(browser)).isEmpty();
		assertThat(browser.findElement(By.cssSelector(".expired")).isDisplayed()).as("A's hold past its lease is drawn")
			.isTrue();

		long height = (Long) browser.executeScript("return document.documentElement.scrollHeight");
		// The window's own frame takes some of its height: make room for the whole page.
		browser.manage().window().setSize(new Dimension(1000, (int) height + 200));
		Files.createDirectories(SCREENSHOT.getParent());
		Files.copy(browser.getScreenshotAs(OutputType.FILE).toPath(), SCREENSHOT, StandardCopyOption.REPLACE_EXISTING);
		assertThat(SCREENSHOT).isNotEmptyFile();
	}

	@Test
	void theStockTableFollowsTheScheduledJobWithoutAReload() {
		browser.get(page());
		long first = shownToken(browser, "A-1");
		new WebDriverWait(browser, Duration.ofSeconds(30)).until((driver) -> shownToken(browser, "A-1") > first);
		assertThat(shownToken(browser, "A-1")).as("a token the database holds or held")
			.isLessThanOrEqualTo(this.stock.find("A-1").lastToken());
	}

	@Test
	void atAPhonesWidthThePageDoesNotScrollSideways() {
		browser.manage().window().setSize(new Dimension(390, 844));
		try {
			browser.get(page());
			assertThat(replayNumber(browser)).isPositive();
			Long overflow = (Long) browser
				.executeScript("return document.documentElement.scrollWidth - document.documentElement.clientWidth");
			assertThat(overflow).as("pixels the page is wider than a 390 px screen").isLessThanOrEqualTo(0L);
			assertThat(browser.findElement(By.cssSelector("[data-owner=A].refused .label")).isDisplayed()).isTrue();
		}
		finally {
			browser.manage().window().setSize(new Dimension(1000, 1200));
		}
	}

	@Test
	void atADesktopWindowSizeEveryOutcomeIsAboveTheFold() {
		browser.manage().window().setSize(new Dimension(1280, 900));
		try {
			browser.get(page());
			assertThat(replayNumber(browser)).isPositive();
			long fold = (Long) browser.executeScript("return window.innerHeight");
			assertThat(fold).as("the height the window shows").isPositive().isLessThanOrEqualTo(900);
			for (String kind : List.of("fenced", "unfenced", "redelivered")) {
				Number bottom = (Number) browser.executeScript("return document.querySelector('#timeline .result."
						+ kind + "').getBoundingClientRect().bottom");
				assertThat(bottom.doubleValue()).as("the bottom of the %s box, unscrolled", kind)
					.isLessThanOrEqualTo(fold);
			}
		}
		finally {
			browser.manage().window().setSize(new Dimension(1000, 1200));
		}
	}

	@Test
	void theReplaysRowsAreExplained() {
		browser.get(page());
		assertThat(browser.findElement(By.cssSelector("#timeline .result.fenced")).getText()).contains("R-1");
		assertThat(browser.findElement(By.cssSelector("#timeline .result.unfenced")).getText()).contains("R-2");
		assertThat(browser.findElement(By.cssSelector("#timeline .result.redelivered")).getText()).contains("R-3")
			.contains("R-4");
		assertThat(browser.findElement(By.id("stock-rows-explained")).getText())
			.contains("R-1 to R-4 are the replay's rows")
			.contains("A-1, B-2 and C-3");
	}

	@Test
	void withoutJavaScriptThePageShowsTheLastReplay() {
		ChromeDriver noScript = Chromium.start(false);
		try {
			noScript.get(page());
			ReplayResult last = this.replay.last().orElseThrow();
			assertThat(noScript.findElement(By.id("timeline")).getDomAttribute("data-replay")).isNotEqualTo("0");
			assertThat(label(noScript, "A", "refused")).endsWith("is older than accepted token " + last.tokenB());
			assertThat(outcome(noScript, "fenced")).containsExactly("9", String.valueOf(last.tokenB()), "9", "9");
			assertThat(outcome(noScript, "unfenced")).containsExactly("5");
			assertThat(outcome(noScript, "redelivered")).containsExactly("8", "6");
			assertThat(noScript.findElement(By.id("replay-button")).isDisplayed()).as("the button needs JavaScript")
				.isFalse();
			assertThat(noScript.findElement(By.tagName("body")).getText())
				.contains("The Replay button needs JavaScript");
			// The address the page was asked for, not the default port.
			noScript.get("http://127.0.0.1:" + this.port + "/");
			assertThat(noScript.findElement(By.tagName("noscript")).getDomProperty("textContent"))
				.contains("curl -X POST http://127.0.0.1:" + this.port + "/replay")
				.doesNotContain("localhost:8080");
		}
		finally {
			noScript.quit();
		}
	}

	@Test
	void theJsonOfTheLastReplayIsTheOneThePageDraws() {
		RestClient http = RestClient.create(page());
		ReplayResult replayed = http.post().uri("/replay").retrieve().body(ReplayResult.class);
		ReplayResult last = http.get().uri("/replay").retrieve().body(ReplayResult.class);
		assertThat(last).isNotNull();
		assertThat(replayed).isNotNull();
		assertThat(last.number()).isEqualTo(replayed.number());
		assertThat(last.events()).isEqualTo(replayed.events());
		assertThat(last.events()).filteredOn((event) -> event.kind() == Kind.REFUSED)
			.singleElement()
			.satisfies((refused) -> {
				assertThat(refused.owner()).isEqualTo(Owner.A);
				assertThat(refused.token()).isEqualTo(last.tokenA());
				assertThat(refused.acceptedToken()).isEqualTo(last.tokenB());
			});
		browser.get(page());
		assertThat(replayNumber(browser)).isEqualTo(last.number());
	}

	private String page() {
		return "http://localhost:" + this.port + "/";
	}

	/** Read in one script: the Replay button swaps the whole timeline. */
	private static int replayNumber(ChromeDriver driver) {
		return Integer
			.parseInt((String) driver.executeScript("return document.getElementById('timeline').dataset.replay"));
	}

	/** The drawn events top to bottom, as "owner kind". */
	@SuppressWarnings("unchecked")
	private static List<String> events(ChromeDriver driver) {
		return (List<String>) driver.executeScript("""
				return [...document.querySelectorAll('#timeline g.event')]
				  .map((event) => event.dataset.owner + ' ' + event.classList[1]);""");
	}

	/**
	 * Labels whose drawn text passes the right edge of their lane (a lease end spans
	 * both).
	 */
	@SuppressWarnings("unchecked")
	private static List<String> labelsOutsideTheirLane(ChromeDriver driver) {
		return (List<String>) driver.executeScript("""
				const right = (owner) => {
				  const lane = document.querySelector(`#timeline rect.lane[data-owner=${owner}]`).getBBox();
				  return lane.x + lane.width;
				};
				const width = document.querySelector('#timeline svg').viewBox.baseVal.width;
				return [...document.querySelectorAll('#timeline g.event')].filter((event) => {
				  const label = event.querySelector('.label').getBBox();
				  const limit = event.classList.contains('lease-expired') ? width : right(event.dataset.owner);
				  return label.x + label.width > limit;
				}).map((event) => event.querySelector('.label').textContent);""");
	}

	/** The label of the one event of this kind in this owner's lane, its lines joined. */
	private static String label(WebDriver driver, String owner, String kind) {
		List<String> labels = labels(driver, owner, kind);
		assertThat(labels).as("%s events of %s", kind, owner).hasSize(1);
		return labels.get(0);
	}

	private static List<String> labels(WebDriver driver, String owner, String kind) {
		return driver.findElements(By.cssSelector("#timeline [data-owner=" + owner + "]." + kind + " .label"))
			.stream()
			.map((label) -> label.findElements(By.tagName("tspan"))
				.stream()
				.map((line) -> line.getDomProperty("textContent"))
				.collect(Collectors.joining(" ")))
			.toList();
	}

	private static List<String> outcome(WebDriver driver, String kind) {
		return driver.findElements(By.cssSelector("#timeline .result." + kind + " strong"))
			.stream()
			.map(WebElement::getText)
			.toList();
	}

	/** Read in one script: the page's own refresh replaces the rows between commands. */
	private static long shownToken(ChromeDriver driver, String sku) {
		Object token = driver.executeScript("""
				for (const row of document.querySelectorAll('#stock-rows tr')) {
				  if (row.cells[0].textContent === arguments[0]) return row.cells[2].textContent;
				}
				return null;""", sku);
		assertThat(token).as("the token of %s in the stock table", sku).isNotNull();
		return Long.parseLong((String) token);
	}

	/** Debian's Chromium and chromedriver, or the ones the environment names. */
	static final class Chromium {

		private static final String BINARY = env("FENCING_TEST_CHROMIUM", "/usr/bin/chromium");

		private static final String DRIVER = env("FENCING_TEST_CHROMEDRIVER", "/usr/bin/chromedriver");

		static ChromeDriver start(boolean javaScript) {
			ChromeOptions options = new ChromeOptions();
			options.setBinary(BINARY);
			// --no-sandbox: CI runs as root, where Chromium's sandbox cannot start.
			options.addArguments("--headless=new", "--no-sandbox", "--disable-dev-shm-usage",
					"--window-size=1000,1200");
			if (!javaScript) {
				options.setExperimentalOption("prefs",
						Map.of("profile.managed_default_content_settings.javascript", 2));
			}
			try {
				ChromeDriverService service = new ChromeDriverService.Builder()
					.usingDriverExecutable(Path.of(DRIVER).toFile())
					.build();
				return new ChromeDriver(service, options);
			}
			catch (RuntimeException ex) {
				throw new IllegalStateException("No browser could start for the timeline page test (Chromium " + BINARY
						+ ", chromedriver " + DRIVER + "). Install Debian's: apt-get install chromium chromium-driver"
						+ " (.ci/run does), or name others with FENCING_TEST_CHROMIUM and FENCING_TEST_CHROMEDRIVER.",
						ex);
			}
		}

		private static String env(String name, String fallback) {
			String value = System.getenv(name);
			return (value != null && !value.isBlank()) ? value : fallback;
		}

	}

}
