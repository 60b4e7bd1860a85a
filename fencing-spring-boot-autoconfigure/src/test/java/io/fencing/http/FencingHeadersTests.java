package io.fencing.http;

import java.util.List;

import io.fencing.FencingToken;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.LongRange;
import net.jqwik.api.constraints.NotBlank;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.http.HttpHeaders;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * The header format: any lock name and token survive the trip, and what a peer could send
 * wrong is refused naming what is wrong.
 */
class FencingHeadersTests {

	@Property(tries = 500)
	void anyLockNamesAndTokensSurviveTheTrip(@ForAll @NotBlank String first,
			@ForAll @LongRange(min = 0) long firstToken, @ForAll @NotBlank String second,
			@ForAll @LongRange(min = 0) long secondToken) {
		List<FencingToken> tokens = first.equals(second) ? List.of(new FencingToken(first, firstToken))
				: List.of(new FencingToken(first, firstToken), new FencingToken(second, secondToken));
		String header = FencingHeaders.format(tokens);
		assertThat(header).matches("[\\x21-\\x7E ]+");
		assertThat(FencingHeaders.parse(header)).isEqualTo(tokens);
	}

	@Test
	void readableLockNamesStayReadable() {
		assertThat(FencingHeaders.format(List.of(new FencingToken("stock-sync:{A-1}", 2),
				new FencingToken("a,b=c; d%", 3), new FencingToken("größe", 4))))
			.isEqualTo("stock-sync:{A-1}=2, a%2Cb%3Dc%3B%20d%25=3, gr%C3%B6%C3%9Fe=4");
	}

	@ParameterizedTest
	@ValueSource(strings = { "garbage", "=2", "lock=", "lock=1x", "lock=+1", "lock=-1", "lock=99999999999999999999",
			"a=1, a=2", "a b=1", "%zz=1", "%C3=1", "%20=1", "lock\"=1" })
	void aMalformedHeaderIsRefused(String header) {
		assertThatIllegalArgumentException().isThrownBy(() -> FencingHeaders.parse(header));
	}

	@Test
	void emptyListElementsAreIgnored() {
		assertThat(FencingHeaders.parse("stock-sync=2,")).containsExactly(new FencingToken("stock-sync", 2));
		assertThat(FencingHeaders.parse(" , stock-sync=2, ,other=3")).containsExactly(new FencingToken("stock-sync", 2),
				new FencingToken("other", 3));
		assertThat(FencingHeaders.parse("")).isEmpty();
	}

	@Test
	void aRefusalIsReadOnlyFromAConflictNamingATokenThatWasSent() {
		List<FencingToken> sent = List.of(new FencingToken("stock-sync", 1));
		HttpHeaders refusal = new HttpHeaders();
		refusal.set(FencingHeaders.REFUSED, "stock-sync=1");
		refusal.set(FencingHeaders.ACCEPTED_TOKEN, "2");
		assertThat(FencingHeaders.refusal(409, refusal, sent, "PUT http://stock/A-1")).satisfies((stale) -> {
			assertThat(stale.getLockName()).isEqualTo("stock-sync");
			assertThat(stale.getToken()).isEqualTo(1);
			assertThat(stale.getAcceptedToken()).isEqualTo(2L);
			assertThat(stale).hasMessageContaining("token 1 is older than accepted token 2")
				.hasMessageContaining("PUT http://stock/A-1");
		});
		assertThat(FencingHeaders.refusal(500, refusal, sent, "PUT /")).isNull();
		assertThat(FencingHeaders.refusal(409, new HttpHeaders(), sent, "PUT /")).isNull();
		assertThat(FencingHeaders.refusal(409, refusal, List.of(new FencingToken("stock-sync", 3)), "PUT /")).isNull();
		HttpHeaders unknownAccepted = new HttpHeaders();
		unknownAccepted.set(FencingHeaders.REFUSED, "stock-sync=1");
		assertThat(FencingHeaders.refusal(409, unknownAccepted, sent, "PUT /").getAcceptedToken()).isNull();
	}

}
