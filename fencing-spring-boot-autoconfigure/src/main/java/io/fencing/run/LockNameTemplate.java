package io.fencing.run;

import java.lang.reflect.Method;

import org.jspecify.annotations.Nullable;

import org.springframework.context.expression.MethodBasedEvaluationContext;
import org.springframework.core.DefaultParameterNameDiscoverer;
import org.springframework.core.ParameterNameDiscoverer;
import org.springframework.expression.Expression;
import org.springframework.expression.ParseException;
import org.springframework.expression.common.CompositeStringExpression;
import org.springframework.expression.common.TemplateParserContext;
import org.springframework.expression.spel.standard.SpelExpressionParser;

/**
 * A lock name, either fixed or a SpEL template over the method's arguments such as
 * {@code "stock-sync:#{#sku}"}. Parsed once per method.
 */
abstract sealed class LockNameTemplate {

	private static final SpelExpressionParser PARSER = new SpelExpressionParser();

	private static final TemplateParserContext TEMPLATE = new TemplateParserContext();

	private static final ParameterNameDiscoverer PARAMETER_NAMES = new DefaultParameterNameDiscoverer();

	/** Parses {@code name}, already free of property placeholders. */
	static LockNameTemplate parse(String name, String description) {
		if (!name.contains(TEMPLATE.getExpressionPrefix())) {
			String problem = LockNames.problem(name);
			if (problem != null) {
				throw new FencingStartupException(description + ": " + problem + ".",
						"Name the lock with a non-blank name whose hash tag, if any, is one non-empty {...}.", null);
			}
			return new Fixed(name);
		}
		try {
			return new Spel(name, PARSER.parseExpression(name, TEMPLATE));
		}
		catch (ParseException ex) {
			throw new FencingStartupException(
					description + ": the lock name '" + name + "' is not a valid SpEL template: " + ex.getMessage()
							+ ".",
					"Write the lock name as text with #{...} expressions over the method's arguments, for example "
							+ "stock-sync:#{#sku}.",
					ex);
		}
	}

	/** The lock name of one invocation. */
	abstract String resolve(Method method, Object[] arguments, @Nullable Object target, String description);

	static final class Fixed extends LockNameTemplate {

		private final String name;

		Fixed(String name) {
			this.name = name;
		}

		String name() {
			return this.name;
		}

		@Override
		String resolve(Method method, Object[] arguments, @Nullable Object target, String description) {
			return this.name;
		}

	}

	static final class Spel extends LockNameTemplate {

		private final String source;

		private final Expression[] parts;

		Spel(String source, Expression expression) {
			this.source = source;
			this.parts = (expression instanceof CompositeStringExpression composite) ? composite.getExpressions()
					: new Expression[] { expression };
		}

		@Override
		String resolve(Method method, Object[] arguments, @Nullable Object target, String description) {
			MethodBasedEvaluationContext context = new MethodBasedEvaluationContext(target, method, arguments,
					PARAMETER_NAMES);
			StringBuilder name = new StringBuilder(this.source.length() + 16);
			for (Expression part : this.parts) {
				String value = part.getValue(context, String.class);
				if (value == null || value.isBlank()) {
					throw new IllegalArgumentException(description + ": '" + part.getExpressionString()
							+ "' in the lock name '" + this.source + "' resolved to "
							+ ((value == null)
									? "null (refer to arguments by name only when compiling with -parameters, "
											+ "otherwise as #p0, #p1, ...)"
									: "a blank value")
							+ "; the method did not run");
				}
				name.append(value);
			}
			String problem = LockNames.problem(name.toString());
			if (problem != null) {
				throw new IllegalArgumentException(description + ": " + problem + "; the method did not run");
			}
			return name.toString();
		}

	}

}
