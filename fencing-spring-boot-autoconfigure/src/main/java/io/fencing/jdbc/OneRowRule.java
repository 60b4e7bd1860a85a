package io.fencing.jdbc;

import java.math.BigInteger;
import java.sql.Types;
import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * When a guarded update pins at most one row: every column of one of its table's unique
 * keys is compared for equality with a value of the column's own type. A value of another
 * type may be converted by the database (MariaDB and H2 match {@code '7'}, {@code '07'}
 * and {@code '007'} for {@code sku = 7}), so it pins nothing; the statement then takes
 * the checked path.
 */
final class OneRowRule {

	static final OneRowRule NEVER = new OneRowRule(List.of());

	/** Per unique key, the arguments that must have the key column's type. */
	private final List<List<ArgumentCheck>> alternatives;

	OneRowRule(List<List<ArgumentCheck>> alternatives) {
		this.alternatives = alternatives;
	}

	boolean pinsOneRow(Object[] args) {
		for (List<ArgumentCheck> checks : this.alternatives) {
			if (allHold(checks, args)) {
				return true;
			}
		}
		return false;
	}

	private static boolean allHold(List<ArgumentCheck> checks, Object[] args) {
		for (ArgumentCheck check : checks) {
			if (!check.type().accepts(args[check.argumentIndex()])) {
				return false;
			}
		}
		return true;
	}

	record ArgumentCheck(int argumentIndex, KeyType type) {
	}

	/** The column types whose equality with a value of the same type is exact. */
	enum KeyType {

		CHARACTER(String.class) {
			@Override
			boolean accepts(@Nullable Object value) {
				return value == null || value instanceof String || value instanceof Character;
			}
		},

		INTEGER(Long.class) {
			@Override
			boolean accepts(@Nullable Object value) {
				return value == null || value instanceof Integer || value instanceof Long || value instanceof Short
						|| value instanceof Byte || value instanceof BigInteger;
			}
		};

		private final Class<?> literalType;

		KeyType(Class<?> literalType) {
			this.literalType = literalType;
		}

		abstract boolean accepts(@Nullable Object value);

		boolean acceptsLiteral(Class<?> type) {
			return this.literalType == type;
		}

		/**
		 * The type of a column of JDBC type {@code jdbcType}, {@code null} when none
		 * fits.
		 */
		static @Nullable KeyType of(int jdbcType) {
			return switch (jdbcType) {
				case Types.CHAR, Types.VARCHAR, Types.LONGVARCHAR, Types.NCHAR, Types.NVARCHAR, Types.LONGNVARCHAR ->
					CHARACTER;
				case Types.TINYINT, Types.SMALLINT, Types.INTEGER, Types.BIGINT -> INTEGER;
				default -> null;
			};
		}

	}

}
