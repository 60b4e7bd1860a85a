package io.fencing.campaign;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import io.fencing.test.HistoryReport;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The fault campaign, short (fixed seeds, in every build: the Redis lock store on
 * PostgreSQL, the database lock store on MariaDB) or long ({@code -Pfault-campaign}: each
 * lock store on each database, at least 10,000 writes and 200 faults each): three worker
 * JVMs under paused and killed workers, a Redis restarted empty or from an older
 * snapshot, the database's connections killed, traffic stalled and cut, and no anomaly in
 * their history. The same campaign with the fence switched off is caught. A failure
 * prints its campaign's seed; its files (each worker's history and log, the database's
 * log of accepted writes, the faults, a picture) are in
 * {@code target/fault-campaign/<name>}.
 */
class FaultCampaignTests {

	private static final boolean LONG = "long".equals(System.getProperty("fault-campaign.size"));

	@TestFactory
	List<DynamicTest> campaignsFindNoAnomaly() {
		List<FaultCampaign> campaigns = new ArrayList<>();
		if (LONG) {
			Duration duration = Duration.ofSeconds(300);
			campaigns
				.add(new FaultCampaign("long-redis-postgresql", "postgresql", "redis", false, 101, 3, 6, duration));
			campaigns.add(new FaultCampaign("long-database-postgresql", "postgresql", "database", false, 102, 3, 6,
					duration));
			campaigns.add(new FaultCampaign("long-redis-mariadb", "mariadb", "redis", false, 103, 3, 6, duration));
			campaigns
				.add(new FaultCampaign("long-database-mariadb", "mariadb", "database", false, 104, 3, 6, duration));
		}
		else {
			Duration duration = Duration.ofSeconds(20);
			campaigns.add(new FaultCampaign("redis-postgresql", "postgresql", "redis", false, 11, 3, 3, duration));
			campaigns.add(new FaultCampaign("database-mariadb", "mariadb", "database", false, 12, 3, 3, duration));
		}
		return campaigns.stream()
			.map((campaign) -> DynamicTest.dynamicTest(campaign.toString(), () -> assertNoAnomalies(campaign)))
			.toList();
	}

	@TestFactory
	List<DynamicTest> withoutTheFenceTheCampaignFindsOlderTokensWrittenOverNewerOnes() {
		return List
			.of(new FaultCampaign("naive-postgresql", "postgresql", "database", true, 13, 3, 3, Duration.ofSeconds(20)),
					new FaultCampaign("naive-mariadb", "mariadb", "redis", true, 14, 3, 3, Duration.ofSeconds(20)))
			.stream()
			.filter((campaign) -> LONG || campaign.database().equals("postgresql"))
			.map((campaign) -> DynamicTest.dynamicTest(campaign.toString(), () -> {
				HistoryReport report = campaign.run();
				System.out.println(campaign + ": " + report.summary());
				assertThat(report.anomaliesByKind()).as("%s: %s", campaign, report.summary())
					.containsKey(HistoryReport.Kind.TOKEN_WENT_DOWN);
			}))
			.toList();
	}

	private static void assertNoAnomalies(FaultCampaign campaign) throws Exception {
		HistoryReport report = campaign.run();
		System.out.println(campaign + ": " + report.summary());
		try {
			report.assertNoAnomalies();
		}
		catch (AssertionError ex) {
			throw new AssertionError(campaign + " (reproduce with its seed): " + ex.getMessage(), ex);
		}
		assertThat(report.faults()).as("%s injected faults", campaign).isNotEmpty();
		assertThat(report.refused()).as("%s: %s", campaign, report.summary()).isPositive();
		if (LONG) {
			// The sizes the long campaign promises, per database and lock store.
			assertThat(report.attempted()).as("%s writes attempted", campaign).isGreaterThanOrEqualTo(10_000);
			assertThat(report.faults().values().stream().mapToLong(Long::longValue).sum())
				.as("%s faults injected", campaign)
				.isGreaterThanOrEqualTo(200);
		}
	}

}
