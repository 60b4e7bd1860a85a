package io.fencing.run;

import io.fencing.run.TokenBindings.Binding;
import io.micrometer.context.ThreadLocalAccessor;
import org.jspecify.annotations.Nullable;

/**
 * Carries the token bindings wherever Micrometer's context propagation carries thread
 * locals: Boot's {@code ContextPropagatingTaskDecorator} ({@code @Async}, executors) and
 * Reactor's automatic context propagation. Registered through {@code META-INF/services};
 * a binding whose task has released its lock stays invisible wherever it is carried.
 */
public class TokenBindingsAccessor implements ThreadLocalAccessor<Binding> {

	@Override
	public Object key() {
		return TokenBindings.CONTEXT_KEY;
	}

	@Override
	public @Nullable Binding getValue() {
		// As it is: Reactor carries a pipeline's bindings to its schedulers' threads
		// through this too.
		return TokenBindings.chain();
	}

	@Override
	public void setValue(Binding value) {
		TokenBindings.restore(value);
	}

	@Override
	public void setValue() {
		TokenBindings.restore(null);
	}

}
