package io.fencing.http;

import java.net.URI;

import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The problem detail a refusal is written as, by hand, is JSON that a parser reads back,
 * member for member, whatever characters a lock name or a message holds.
 */
class FencedRequestRefusedExceptionTests {

	@Test
	void theProblemDetailIsJsonWhateverItsTextHolds() {
		ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.CONFLICT,
				"token 1 of \"lock\" \\ is older\nthan \u0001 accepted token 2 ü");
		problem.setTitle("Stale fencing token");
		problem.setInstance(URI.create("/stock/A-1"));
		problem.setProperty("lockName", "a\"b");
		problem.setProperty("token", 1L);
		problem.setProperty("acceptedToken", null);
		JsonNode json = JsonMapper.builder().build().readTree(FencedRequestRefusedException.json(problem));
		assertThat(json.get("type").asString()).isEqualTo("about:blank");
		assertThat(json.get("status").asInt()).isEqualTo(409);
		assertThat(json.get("title").asString()).isEqualTo("Stale fencing token");
		assertThat(json.get("detail").asString()).isEqualTo(problem.getDetail());
		assertThat(json.get("instance").asString()).isEqualTo("/stock/A-1");
		assertThat(json.get("lockName").asString()).isEqualTo("a\"b");
		assertThat(json.get("token").asLong()).isEqualTo(1L);
		assertThat(json.get("acceptedToken").isNull()).isTrue();
	}

}
