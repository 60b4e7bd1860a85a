package io.fencing.jdbc;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.util.Map;
import java.util.UUID;
import java.util.function.Function;

import org.jspecify.annotations.Nullable;

import org.springframework.util.ClassUtils;

/**
 * The results an operation applied once saves with its record, as text that reads back to
 * an equal value: strings, numbers, booleans, UUIDs, dates and times, durations and enum
 * constants (by name). A replay returns the value read back, so a type whose text could
 * not be read back exactly is refused before the work runs.
 */
final class SavedResults {

	private static final Map<Class<?>, Function<String, Object>> READERS = Map.ofEntries(
			Map.entry(String.class, (text) -> text), Map.entry(Boolean.class, Boolean::valueOf),
			Map.entry(Short.class, Short::valueOf), Map.entry(Integer.class, Integer::valueOf),
			Map.entry(Long.class, Long::valueOf), Map.entry(Double.class, Double::valueOf),
			Map.entry(BigInteger.class, BigInteger::new), Map.entry(BigDecimal.class, BigDecimal::new),
			Map.entry(UUID.class, UUID::fromString), Map.entry(Instant.class, Instant::parse),
			Map.entry(LocalDate.class, LocalDate::parse), Map.entry(LocalDateTime.class, LocalDateTime::parse),
			Map.entry(OffsetDateTime.class, OffsetDateTime::parse), Map.entry(Duration.class, Duration::parse));

	private SavedResults() {
	}

	/**
	 * Refuses a result type whose values cannot be saved.
	 * @throws IllegalArgumentException naming the type and the types that can
	 */
	public static void checkSaved(Class<?> resultType) {
		Class<?> type = ClassUtils.resolvePrimitiveIfNecessary(resultType);
		if (type != Void.class && !type.isEnum() && !READERS.containsKey(type)) {
			throw new IllegalArgumentException("A result of type " + resultType.getName() + " cannot be saved for "
					+ "a replay: return a String, Boolean, Short, Integer, Long, Double, BigInteger, BigDecimal, UUID, "
					+ "Instant, LocalDate, LocalDateTime, OffsetDateTime, Duration or enum (an entity's id rather than "
					+ "the entity), or Void. Nothing ran");
		}
	}

	/** The text saved for {@code result}, {@code null} for none. */
	public static @Nullable String write(@Nullable Object result) {
		if (result == null) {
			return null;
		}
		return (result instanceof Enum<?> constant) ? constant.name() : result.toString();
	}

	/**
	 * The result saved as {@code text} for {@code operationId}, as a {@code resultType}.
	 * @throws IllegalStateException naming the operation when the text no longer reads as
	 * one (an enum constant renamed since, say)
	 */
	public static <T> @Nullable T read(String operationId, @Nullable String text, Class<T> resultType) {
		try {
			return read(text, resultType);
		}
		catch (RuntimeException ex) {
			throw new IllegalStateException("The result saved for operation '" + operationId + "' ('" + text
					+ "') cannot be read as a " + resultType.getName() + " (" + ex.getMessage() + "): was the type "
					+ "changed since, an enum constant renamed? Nothing ran", ex);
		}
	}

	@SuppressWarnings({ "unchecked", "rawtypes" })
	private static <T> @Nullable T read(@Nullable String text, Class<T> resultType) {
		Class<?> type = ClassUtils.resolvePrimitiveIfNecessary(resultType);
		if (text == null || type == Void.class) {
			return null;
		}
		if (type.isEnum()) {
			return (T) Enum.valueOf((Class) type, text);
		}
		Function<String, Object> reader = READERS.get(type);
		if (reader == null) {
			throw new IllegalArgumentException("A result of type " + resultType.getName() + " cannot be read back");
		}
		return (T) reader.apply(text);
	}

}
