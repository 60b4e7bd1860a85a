package io.fencing.redis;

import java.util.UUID;

import io.fencing.FencedResource;
import io.fencing.FencingToken;
import io.fencing.StaleWriterException;
import io.fencing.testsupport.RedisServer;
import io.fencing.testsupport.TestServices;
import io.lettuce.core.cluster.SlotHash;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.dao.InvalidDataAccessApiUsageException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * Fenced Redis values through one client (a subclass), on the real Redis: the reference
 * timeline on a string value, on a hash field and on a delete, tokens compared exactly
 * beyond a double's precision, another lock's token refused, and every token kept in its
 * value's Redis Cluster slot. Every test has keys of its own.
 */
abstract class FencedRedisValuesContractTests {

	private final String lock = "stock-level-" + UUID.randomUUID();

	private final String key = "stock-level:" + UUID.randomUUID();

	/** The values and the tokens this test wrote: a token is kept for good. */
	@AfterEach
	void removeKeys() {
		TestServices.deleteRedisKeys("*" + this.key + "*");
		TestServices.deleteRedisKeys("*" + this.lock + "*");
	}

	/** The client's fenced values. */
	protected abstract FencedRedisKeys values();

	/** The client's fenced values on another Redis, on this port. */
	protected abstract Connected valuesOn(int port);

	/** Fenced values on a client of their own, and how to close it. */
	protected record Connected(FencedRedisKeys values, Runnable close) {
	}

	private void writeField(FencingToken token, String key, String field, String value) {
		values().writeField(token, key, field, value);
	}

	private void deleteField(FencingToken token, String key, String field) {
		values().deleteField(token, key, field);
	}

	private String readField(String key, String field) {
		return values().readField(key, field);
	}

	@Test
	void theReferenceTimelineOnAStringValue() {
		FencedResource<String> values = values();
		values.write(token(2), this.key, "8");
		assertThatExceptionOfType(StaleWriterException.class).isThrownBy(() -> values.write(token(1), this.key, "5"))
			.withMessageContaining("token 1 is older than accepted token 2")
			.withMessageContaining("Redis key '" + this.key + "'")
			.satisfies((refused) -> {
				assertThat(refused.getLockName()).isEqualTo(this.lock);
				assertThat(refused.getToken()).isEqualTo(1);
				assertThat(refused.getAcceptedToken()).isEqualTo(2);
			});
		values.write(token(2), this.key, "9");
		assertThat(values.read(this.key)).isEqualTo("9");
		assertThat(values.acceptedToken(this.key)).isEqualTo(token(2));
	}

	@Test
	void theReferenceTimelineOnAHashField() {
		writeField(token(2), this.key, "A-1", "8");
		writeField(token(2), this.key, "B-2", "20");
		assertThatExceptionOfType(StaleWriterException.class)
			.isThrownBy(() -> writeField(token(1), this.key, "A-1", "5"))
			.withMessageContaining("token 1 is older than accepted token 2");
		assertThatExceptionOfType(StaleWriterException.class).isThrownBy(() -> deleteField(token(1), this.key, "B-2"));
		writeField(token(2), this.key, "A-1", "9");
		assertThat(readField(this.key, "A-1")).isEqualTo("9");
		assertThat(readField(this.key, "B-2")).isEqualTo("20");
		deleteField(token(3), this.key, "B-2");
		assertThat(readField(this.key, "B-2")).isNull();
	}

	@Test
	void aStaleOwnerCannotDeleteNorBringBackADeletedValue() {
		FencedResource<String> values = values();
		values.write(token(2), this.key, "8");
		assertThatExceptionOfType(StaleWriterException.class).isThrownBy(() -> values.delete(token(1), this.key));
		assertThat(values.read(this.key)).isEqualTo("8");
		values.delete(token(2), this.key);
		assertThat(values.read(this.key)).isNull();
		assertThatExceptionOfType(StaleWriterException.class).isThrownBy(() -> values.write(token(1), this.key, "5"));
		assertThat(values.read(this.key)).isNull();
		assertThat(values.acceptedToken(this.key)).isEqualTo(token(2));
	}

	@Test
	void tokensAreComparedExactlyBeyondADoublesPrecision() {
		FencedResource<String> values = values();
		// 2^53 + 1 and 2^53 are one double in Lua.
		values.write(token(9007199254740993L), this.key, "newer");
		assertThatExceptionOfType(StaleWriterException.class)
			.isThrownBy(() -> values.write(token(9007199254740992L), this.key, "older"));
		values.write(token(10_000_000_000_000_000L), this.key, "ten digits more");
		assertThatExceptionOfType(StaleWriterException.class)
			.isThrownBy(() -> values.write(token(9_999_999_999_999_999L), this.key, "one digit less"));
		assertThat(values.read(this.key)).isEqualTo("ten digits more");
	}

	@Test
	void aTokenOfAnotherLockIsRefusedNamingBothLocks() {
		FencedResource<String> values = values();
		values.write(token(5), this.key, "5");
		assertThatIllegalStateException()
			.isThrownBy(() -> values.write(new FencingToken("other-lock", 9), this.key, "9"))
			.withMessageContaining("Redis key '" + this.key + "' is fenced by lock '" + this.lock + "' (token 5)")
			.withMessageContaining("a token of lock 'other-lock' (9)");
		assertThat(values.read(this.key)).isEqualTo("5");
	}

	@Test
	void everyTokenIsKeptInItsValuesClusterSlot() {
		for (String key : new String[] { "stock", "stock:{A-1}:level", "{user:1}", "a{b", "a{b}{c}", "{{x}}" }) {
			assertThat(SlotHash.getSlot(FencedWrites.tokenKey(key))).as(key).isEqualTo(SlotHash.getSlot(key));
		}
		assertThatIllegalArgumentException().isThrownBy(() -> values().write(token(1), "a}b", "1"))
			.withMessageContaining("Redis key 'a}b' has a '}' outside a hash tag");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> values().write(token(1), FencedWrites.tokenKey(this.key), "1"))
			.withMessageContaining("where the fenced values keep their tokens");
		assertThatIllegalArgumentException().isThrownBy(() -> values().write(token(1), "fencing:lock:" + this.key, "1"))
			.withMessageContaining("where the Redis lock store keeps its locks");
		// An empty tag: Redis hashes the whole key, which no tag can name.
		for (String key : new String[] { "a{}b", "x{}y{z}" }) {
			assertThatIllegalArgumentException().isThrownBy(() -> values().write(token(1), key, "1"));
		}
	}

	@Test
	void aKeyAndTheSameKeyInBracesKeepTwoTokens() {
		String braced = "{" + this.key + "}";
		values().write(new FencingToken("other-lock", 5), braced, "a");
		assertThat(values().acceptedToken(this.key)).as("never written").isNull();
		values().write(token(3), this.key, "b");
		assertThat(values().acceptedToken(braced)).isEqualTo(new FencingToken("other-lock", 5));
		assertThat(values().acceptedToken(this.key)).isEqualTo(token(3));
		assertThat(FencedWrites.tokenKey(braced)).isNotEqualTo(FencedWrites.tokenKey(this.key));
	}

	@Test
	void aNegativeTokenIsRefusedBeforeAnythingIsWritten() {
		values().write(token(5), this.key, "five");
		for (long negative : new long[] { -1, Long.MIN_VALUE }) {
			assertThatIllegalArgumentException().isThrownBy(() -> values().write(token(negative), this.key, "x"))
				.withMessageContaining("Token " + negative + " of lock '" + this.lock + "' is negative");
			assertThatIllegalArgumentException().isThrownBy(() -> values().delete(token(negative), this.key));
		}
		assertThat(values().read(this.key)).isEqualTo("five");
		assertThat(values().acceptedToken(this.key)).isEqualTo(token(5));
		// Lengths differ at every power of ten: 9 after 10 is older.
		values().write(token(10), this.key, "ten");
		assertThatExceptionOfType(StaleWriterException.class).isThrownBy(() -> values().write(token(9), this.key, "9"));
	}

	@Test
	void aNullValueIsRefusedBeforeAnythingIsWritten() {
		assertThatIllegalArgumentException().isThrownBy(() -> values().write(token(2), this.key, null))
			.withMessageContaining("The value of Redis key '" + this.key + "' must not be null");
		assertThatIllegalArgumentException().isThrownBy(() -> values().writeField(token(2), this.key, "A-1", null));
		assertThat(values().read(this.key)).isNull();
		assertThat(values().acceptedToken(this.key)).isNull();
	}

	@Test
	void aWriteOfAnotherTypeThanTheKeyHoldsNamesTheKeyAndChangesNothing() {
		values().write(token(2), this.key, "8");
		assertThatExceptionOfType(InvalidDataAccessApiUsageException.class)
			.isThrownBy(() -> values().writeField(token(3), this.key, "A-1", "9"))
			.withMessageContaining("Redis key '" + this.key + "' holds a value of another type than HSET writes");
		assertThat(values().read(this.key)).isEqualTo("8");
		assertThat(values().acceptedToken(this.key)).isEqualTo(token(2));
	}

	@Test
	void withFencingOffEveryKeyIsWrittenAsThePlainCommandWould() {
		FencedRedisKeys values = values();
		values.setFencingEnabled(false);
		try {
			String key = this.key + "}";
			values.write(key, "1");
			values.writeField(this.key, "A-1", "2");
			values.deleteField(this.key, "A-1");
			assertThat(values.read(key)).isEqualTo("1");
			assertThat(values.readField(this.key, "A-1")).isNull();
			values.delete(key);
			assertThat(values.read(key)).isNull();
		}
		finally {
			values.setFencingEnabled(true);
		}
	}

	/** A server without the script cached (a restart, SCRIPT FLUSH): it is sent again. */
	@Test
	void aWriteAfterTheServerLostItsScriptsSendsTheScriptAgain() {
		try (RedisServer server = RedisServer.start()) {
			Connected connected = valuesOn(server.port());
			try {
				FencedRedisKeys values = connected.values();
				values.write(token(1), this.key, "1");
				server.command("SCRIPT", "FLUSH");
				values.write(token(2), this.key, "2");
				server.command("SCRIPT", "FLUSH");
				assertThatExceptionOfType(StaleWriterException.class)
					.isThrownBy(() -> values.write(token(1), this.key, "stale"));
				assertThat(values.read(this.key)).isEqualTo("2");
			}
			finally {
				connected.close().run();
			}
		}
	}

	private FencingToken token(long value) {
		return new FencingToken(this.lock, value);
	}

}
