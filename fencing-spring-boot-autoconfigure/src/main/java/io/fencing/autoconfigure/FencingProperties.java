package io.fencing.autoconfigure;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.fencing.OnBusy;
import io.fencing.jdbc.FencedJdbcTemplate;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.core.io.Resource;

/**
 * Configuration of fenced tasks and guarded updates. The rules for the task settings live
 * with the tasks ({@code io.fencing.run.TaskSettings}); an invalid value fails the
 * startup with a message that names the property.
 */
@ConfigurationProperties("fencing")
public class FencingProperties {

	/**
	 * Whether @FencedTask methods run under their lock and guarded updates are fenced.
	 * When false, both run unguarded, and a warning at startup says so.
	 */
	private boolean enabled = true;

	/**
	 * Fixed lease of every task lock. Unset: the lease is renewed while the method runs
	 * (Redisson's watchdog, or the database lock store's renewal: 30 s, every 10 s).
	 */
	private @Nullable Duration leaseTime;

	/**
	 * How long a task waits for a busy lock. 0 makes one attempt.
	 */
	private Duration waitTime = Duration.ZERO;

	/**
	 * What a task does when its lock stays busy: skip (the method returns null or an
	 * empty Optional) or fail (LockBusyException).
	 */
	private OnBusy onBusy = OnBusy.SKIP;

	/**
	 * Minimum hold of every task lock (ShedLock's lockAtLeastFor): the lock stays taken
	 * until at least this long after a run began, then expires, so that instances whose
	 * schedules differ by less run each tick once. 0 releases it when the run ends. With
	 * a fixed lease, at most the lease.
	 */
	private Duration holdAtLeast = Duration.ZERO;

	/**
	 * Per-task overrides, keyed by the @FencedTask value (in brackets when it holds
	 * characters other than letters, digits and '-'): lease-time, wait-time, on-busy
	 * (skip or fail) and hold-at-least, as the fencing.* defaults of the same names. They
	 * take precedence over the annotation's attributes.
	 */
	private final Map<String, Task> tasks = new LinkedHashMap<>();

	/**
	 * Where the locks are taken: redis (a Redisson lock) or database (a row of the
	 * fencing_lock table in the application's DataSource, taken and given its token from
	 * the database's sequence in one statement; no Redis needed). Unset: redis when
	 * Redisson is on the class path, else database.
	 */
	private @Nullable LockStoreType lockStore;

	/**
	 * Where each acquisition's token comes from with the Redis lock store: database (a
	 * sequence in the application's DataSource, taken once Redis has granted the lock;
	 * tokens rise across anything Redis loses) or redis (Redisson's counter per lock
	 * name, which Redis must keep). Unset: database when the application has a single
	 * DataSource, else redis. The database lock store always takes the database's.
	 */
	private @Nullable TokenSourceType tokenSource;

	private final Jdbc jdbc = new Jdbc();

	private final Redis redis = new Redis();

	private final Operations operations = new Operations();

	public boolean isEnabled() {
		return this.enabled;
	}

	public void setEnabled(boolean enabled) {
		this.enabled = enabled;
	}

	public @Nullable Duration getLeaseTime() {
		return this.leaseTime;
	}

	public void setLeaseTime(@Nullable Duration leaseTime) {
		this.leaseTime = leaseTime;
	}

	public Duration getHoldAtLeast() {
		return this.holdAtLeast;
	}

	public void setHoldAtLeast(Duration holdAtLeast) {
		this.holdAtLeast = holdAtLeast;
	}

	public Duration getWaitTime() {
		return this.waitTime;
	}

	public void setWaitTime(Duration waitTime) {
		this.waitTime = waitTime;
	}

	public OnBusy getOnBusy() {
		return this.onBusy;
	}

	public void setOnBusy(OnBusy onBusy) {
		this.onBusy = onBusy;
	}

	public Map<String, Task> getTasks() {
		return this.tasks;
	}

	public @Nullable LockStoreType getLockStore() {
		return this.lockStore;
	}

	public void setLockStore(@Nullable LockStoreType lockStore) {
		this.lockStore = lockStore;
	}

	public @Nullable TokenSourceType getTokenSource() {
		return this.tokenSource;
	}

	public void setTokenSource(@Nullable TokenSourceType tokenSource) {
		this.tokenSource = tokenSource;
	}

	/**
	 * Whether each token comes from the database rather than from the locks: set so, or
	 * unset with a single {@code DataSource}.
	 * @param singleDataSource whether the application has a single {@code DataSource}
	 */
	public boolean takesTokensFromDatabase(boolean singleDataSource) {
		return (this.tokenSource != null) ? this.tokenSource == TokenSourceType.DATABASE : singleDataSource;
	}

	public Jdbc getJdbc() {
		return this.jdbc;
	}

	public Redis getRedis() {
		return this.redis;
	}

	public Operations getOperations() {
		return this.operations;
	}

	/**
	 * Settings of one task, overriding its annotation and the {@code fencing.*} defaults.
	 */
	public static class Task {

		/**
		 * Fixed lease of this task's lock.
		 */
		private @Nullable Duration leaseTime;

		/**
		 * How long this task waits for its busy lock.
		 */
		private @Nullable Duration waitTime;

		/**
		 * What this task does when its lock stays busy: skip or fail.
		 */
		private @Nullable OnBusy onBusy;

		/**
		 * Minimum hold of this task's lock, from the start of a run.
		 */
		private @Nullable Duration holdAtLeast;

		public @Nullable Duration getLeaseTime() {
			return this.leaseTime;
		}

		public void setLeaseTime(@Nullable Duration leaseTime) {
			this.leaseTime = leaseTime;
		}

		public @Nullable Duration getWaitTime() {
			return this.waitTime;
		}

		public void setWaitTime(@Nullable Duration waitTime) {
			this.waitTime = waitTime;
		}

		public @Nullable OnBusy getOnBusy() {
			return this.onBusy;
		}

		public void setOnBusy(@Nullable OnBusy onBusy) {
			this.onBusy = onBusy;
		}

		public @Nullable Duration getHoldAtLeast() {
			return this.holdAtLeast;
		}

		public void setHoldAtLeast(@Nullable Duration holdAtLeast) {
			this.holdAtLeast = holdAtLeast;
		}

	}

	/** Guarded updates through {@link FencedJdbcTemplate}. */
	public static class Jdbc {

		/**
		 * Column of every guarded table that holds the last accepted fencing token: a
		 * plain identifier, or one in the database's own quotes ("LastToken" on
		 * PostgreSQL and H2, `LastToken` on MySQL and MariaDB) for an exact letter case.
		 */
		private String tokenColumn = FencedJdbcTemplate.DEFAULT_TOKEN_COLUMN;

		/**
		 * How many rewritten guarded statements are kept, one per distinct SQL string.
		 */
		private int statementCacheSize = FencedJdbcTemplate.DEFAULT_STATEMENT_CACHE_SIZE;

		/**
		 * When the starter creates its schema (the token source's sequence, or its
		 * counter row on MySQL, and the fences of fenced-tables): embedded (only in an
		 * embedded database), always, or never (create it yourself, for example in a
		 * Flyway or Liquibase migration, from the DDL in the jar:
		 * io/fencing/jdbc/schema-*.sql).
		 */
		private InitializeSchema initializeSchema = InitializeSchema.EMBEDDED;

		/**
		 * Tables the database itself fences, table or schema.table: a trigger refuses
		 * every INSERT, UPDATE and DELETE whose writer's token (the running task's,
		 * carried by the connection) is older than the row's token column, or that
		 * carries none, whatever library sends it. Checked at startup, and created with
		 * initialize-schema.
		 */
		private List<String> fencedTables = new ArrayList<>();

		/**
		 * How long a fenced table keeps the token that deleted a row (in the
		 * fencing_tombstones table of its schema), during which an insert of the same
		 * primary key with an older token is refused. Longer than any pause a stale owner
		 * may wake up from.
		 */
		private Duration tombstoneRetention = Duration.ofDays(3);

		public Duration getTombstoneRetention() {
			return this.tombstoneRetention;
		}

		public void setTombstoneRetention(Duration tombstoneRetention) {
			this.tombstoneRetention = tombstoneRetention;
		}

		public List<String> getFencedTables() {
			return this.fencedTables;
		}

		public void setFencedTables(List<String> fencedTables) {
			this.fencedTables = fencedTables;
		}

		public InitializeSchema getInitializeSchema() {
			return this.initializeSchema;
		}

		public void setInitializeSchema(InitializeSchema initializeSchema) {
			this.initializeSchema = initializeSchema;
		}

		public String getTokenColumn() {
			return this.tokenColumn;
		}

		public void setTokenColumn(String tokenColumn) {
			this.tokenColumn = tokenColumn;
		}

		public int getStatementCacheSize() {
			return this.statementCacheSize;
		}

		public void setStatementCacheSize(int statementCacheSize) {
			this.statementCacheSize = statementCacheSize;
		}

	}

	/** Where the locks are taken. */
	public enum LockStoreType {

		/** A Redisson lock in Redis. */
		REDIS,

		/**
		 * A row of the fencing_lock table in the application's database, which issues the
		 * token in the same statement.
		 */
		DATABASE

	}

	/** Where each acquisition's token comes from. */
	public enum TokenSourceType {

		/** A sequence in the application's database. */
		DATABASE,

		/** Redisson's counter per lock name, in Redis. */
		REDIS

	}

	/** When the starter creates its schema, as Boot's own schema initialisers do. */
	public enum InitializeSchema {

		/** Only in an embedded database. */
		EMBEDDED,

		/** Always (the DDL only creates what is missing). */
		ALWAYS,

		/** Never: the application creates it. */
		NEVER

	}

	/** Operations applied at most once ({@code guardedUpdateOnce}). */
	public static class Operations {

		/**
		 * How long the id of an applied operation is kept: an id presented again within
		 * it is not applied again; after it, it is applied again. The starter removes
		 * older ids in the background.
		 */
		private Duration retention = Duration.ofDays(3);

		public Duration getRetention() {
			return this.retention;
		}

		public void setRetention(Duration retention) {
			this.retention = retention;
		}

	}

	/** The Redis that holds the locks and their token counters. */
	public static class Redis {

		/**
		 * Redisson configuration file (YAML) for the starter's own Redisson client, for
		 * settings that spring.data.redis.* does not have. Unset: the client is built
		 * from Boot's Redis connection details. Ignored when the application defines its
		 * own RedissonClient bean.
		 */
		private @Nullable Resource config;

		/**
		 * Whether the startup fails when the starter's own Redisson client cannot reach
		 * Redis. Off: the application starts without Redis; its fenced tasks fail with
		 * LockUnavailableException, and the fencing health component is DOWN, until Redis
		 * is reachable, and the first run after that works. Ignored when the application
		 * defines its own RedissonClient bean.
		 */
		private boolean failFast;

		/**
		 * What the Redis key of every lock starts with: with the prefix fencing:lock:,
		 * the lock stock-sync is the key fencing:lock:stock-sync, so that a key of the
		 * application named like a lock is not taken for it. Unset: fencing:lock: when
		 * the tokens come from the database; empty (the key is the lock name) with
		 * fencing.token-source=redis, whose token counters, named after the lock's key
		 * (redisson_lock_token:{stock-sync}), must not move. Must not hold a brace, which
		 * would put every lock in one Redis Cluster slot.
		 */
		private @Nullable String keyPrefix;

		public @Nullable String getKeyPrefix() {
			return this.keyPrefix;
		}

		public void setKeyPrefix(@Nullable String keyPrefix) {
			this.keyPrefix = keyPrefix;
		}

		public @Nullable Resource getConfig() {
			return this.config;
		}

		public void setConfig(@Nullable Resource config) {
			this.config = config;
		}

		public boolean isFailFast() {
			return this.failFast;
		}

		public void setFailFast(boolean failFast) {
			this.failFast = failFast;
		}

	}

}
