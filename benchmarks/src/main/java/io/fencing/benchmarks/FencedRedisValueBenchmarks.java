package io.fencing.benchmarks;

import java.net.URI;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import io.fencing.FencingToken;
import io.fencing.redis.FencedRedisValues;
import io.fencing.redis.RedissonFencedValues;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.redisson.Redisson;
import org.redisson.api.RBucket;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;
import org.redisson.config.Config;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * A fenced Redis value against a plain {@code SET} of the same key, through Spring Data
 * Redis on Lettuce and through Redisson: one key written over and over with one token, as
 * a run publishing a value does.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(1)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 10, time = 1)
public class FencedRedisValueBenchmarks {

	private LettuceConnectionFactory connections;

	private StringRedisTemplate redis;

	private FencedRedisValues values;

	private RedissonClient redisson;

	private RedissonFencedValues redissonValues;

	private RBucket<String> bucket;

	private String key;

	private final FencingToken token = new FencingToken("bench-values", 1);

	private int next;

	@Setup
	public void connect() {
		URI redisUrl = URI.create(BenchmarkServices.redisUrl());
		this.connections = new LettuceConnectionFactory(
				new RedisStandaloneConfiguration(redisUrl.getHost(), redisUrl.getPort()));
		this.connections.afterPropertiesSet();
		this.connections.start();
		this.redis = new StringRedisTemplate(this.connections);
		this.values = new FencedRedisValues(this.redis);
		Config config = new Config();
		config.useSingleServer().setAddress(BenchmarkServices.redisUrl());
		this.redisson = Redisson.create(config);
		this.redissonValues = new RedissonFencedValues(this.redisson);
		this.key = "bench-value:" + UUID.randomUUID();
		this.bucket = this.redisson.getBucket(this.key, StringCodec.INSTANCE);
	}

	@TearDown
	public void disconnect() {
		this.redis.delete(this.key);
		this.redis.delete("fencing:token:u:{" + this.key + "}");
		this.redisson.shutdown();
		this.connections.destroy();
	}

	@Benchmark
	public void springDataSet() {
		this.redis.opsForValue().set(this.key, Integer.toString(++this.next));
	}

	@Benchmark
	public void springDataFencedWrite() {
		this.values.write(this.token, this.key, Integer.toString(++this.next));
	}

	@Benchmark
	public void redissonSet() {
		this.bucket.set(Integer.toString(++this.next));
	}

	@Benchmark
	public void redissonFencedWrite() {
		this.redissonValues.write(this.token, this.key, Integer.toString(++this.next));
	}

}
