package io.fencing.hibernate;

import java.sql.SQLException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiConsumer;

import io.fencing.FencingToken;
import io.fencing.NoFencingTokenException;
import io.fencing.StaleWriterException;
import io.fencing.context.MissingToken;
import io.fencing.context.TokenBindings;
import org.hibernate.StaleObjectStateException;
import org.hibernate.StaleStateException;
import org.hibernate.engine.spi.SessionFactoryImplementor;
import org.hibernate.engine.spi.SharedSessionContractImplementor;
import org.hibernate.event.spi.AutoFlushEventListener;
import org.hibernate.event.spi.EventSource;
import org.hibernate.event.spi.FlushEventListener;
import org.hibernate.event.spi.PostDeleteEvent;
import org.hibernate.event.spi.PostDeleteEventListener;
import org.hibernate.event.spi.PostUpdateEvent;
import org.hibernate.event.spi.PostUpdateEventListener;
import org.hibernate.event.spi.PreDeleteEvent;
import org.hibernate.event.spi.PreDeleteEventListener;
import org.hibernate.event.spi.PreInsertEvent;
import org.hibernate.event.spi.PreInsertEventListener;
import org.hibernate.event.spi.PreUpdateEvent;
import org.hibernate.event.spi.PreUpdateEventListener;
import org.hibernate.event.spi.PreUpsertEvent;
import org.hibernate.event.spi.PreUpsertEventListener;
import org.hibernate.persister.entity.EntityPersister;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The fenced writes of one session factory. Right before Hibernate writes the UPDATE or
 * DELETE of a fenced entity, this marks the statement's fence for this thread, so that
 * {@link FencingStatementInspector} adds it to that statement only; a row the fence
 * refused becomes a {@link StaleWriterException} when its flush fails.
 */
final class FencedWrites implements PreInsertEventListener, PreUpdateEventListener, PreUpsertEventListener,
		PreDeleteEventListener, PostUpdateEventListener, PostDeleteEventListener {

	private static final Logger logger = LoggerFactory.getLogger(FencedWrites.class);

	private static final ThreadLocal<Fence> PENDING = new ThreadLocal<>();

	private final BiConsumer<StaleWriterException, String> refusals;

	private volatile Map<String, FencedEntity> entities = Map.of();

	/**
	 * @param refusals told of each refused write and its table, on the writer's thread
	 */
	FencedWrites(BiConsumer<StaleWriterException, String> refusals) {
		this.refusals = refusals;
	}

	/**
	 * The fence of the statement about to be written on this thread: the rows of the
	 * entity's token table whose token is at most {@code token}.
	 */
	record Fence(FencedEntity entity, long token) {
	}

	static @Nullable Fence pendingFence() {
		return PENDING.get();
	}

	/**
	 * The token of the one lock bound to this thread, for the write of a fenced entity.
	 * @throws NoFencingTokenException when none is bound
	 * @throws IllegalStateException when several locks are bound
	 */
	static FencingToken currentToken(String entityName, @Nullable Object id) {
		FencingToken token = TokenBindings.tokenOfTheOnlyLock("Write of a fenced entity refused",
				(tokens) -> "write fenced entities in a task that holds only the lock that protects them");
		if (token == null) {
			throw new NoFencingTokenException("No fencing token is bound to this thread for the write of fenced entity "
					+ entityName + "#" + id + ": " + MissingToken.advice());
		}
		return token;
	}

	/** Describes the fenced entity types once the session factory is built. */
	void describe(SessionFactoryImplementor sessionFactory) {
		Map<String, FencedEntity> described = new LinkedHashMap<>();
		sessionFactory.getMappingMetamodel().forEachEntityDescriptor((persister) -> {
			FencedEntity entity = FencedEntity.of(persister);
			if (entity != null) {
				described.put(entity.entityName(), entity);
			}
		});
		this.entities = Map.copyOf(described);
		if (!described.isEmpty()) {
			logger.info("Fenced JPA entities: {}",
					described.values()
						.stream()
						.map((entity) -> entity.entityName() + " (" + entity.table() + "." + entity.column() + ")")
						.toList());
		}
	}

	@Override
	public boolean onPreUpsert(PreUpsertEvent event) {
		fenced(event.getPersister(), event.getSession(), event.getEntity());
		return false;
	}

	@Override
	public boolean onPreInsert(PreInsertEvent event) {
		FencedEntity entity = fenced(event.getPersister(), event.getSession(), event.getEntity());
		if (entity != null) {
			checkTokenWritten(entity, event.getId(), event.getState()[entity.stateIndex()],
					currentToken(entity.entityName(), event.getId()).value(), "inserted");
		}
		return false;
	}

	@Override
	public boolean onPreUpdate(PreUpdateEvent event) {
		Fence fence = markFence(event.getPersister(), event.getSession(), event.getEntity(), event.getId());
		if (fence != null) {
			checkTokenWritten(fence.entity(), event.getId(), event.getState()[fence.entity().stateIndex()],
					fence.token(), "updated");
		}
		return false;
	}

	/**
	 * FencingInterceptor sets the token while Hibernate checks the entity for changes.
	 */
	private static void checkTokenWritten(FencedEntity entity, @Nullable Object id, @Nullable Object written,
			long token, String write) {
		if (!(written instanceof Long value) || value != token) {
			throw new IllegalStateException("Fenced entity " + entity.entityName() + "#" + id + " is about to be "
					+ write + " with token " + written + " instead of the current token " + token
					+ ": the fencing interceptor did not run for it (was the session opened with an interceptor "
					+ "of its own, or none?)");
		}
	}

	@Override
	public boolean onPreDelete(PreDeleteEvent event) {
		markFence(event.getPersister(), event.getSession(), event.getEntity(), event.getId());
		return false;
	}

	/** Marks the fence of a fenced entity's statement, or that the next one has none. */
	private @Nullable Fence markFence(EntityPersister persister, SharedSessionContractImplementor session,
			Object entityObject, Object id) {
		FencedEntity entity = fenced(persister, session, entityObject);
		if (entity == null) {
			PENDING.remove();
			return null;
		}
		if (!(session.getJdbcSessionContext().getStatementInspector() instanceof FencingStatementInspector)) {
			throw new IllegalStateException("Fenced entity " + entity.entityName() + "#" + id + " is written by a "
					+ "session opened with a statement inspector of its own (or none), which would leave out the "
					+ "fence; open it with the session factory's inspector");
		}
		Fence fence = new Fence(entity, currentToken(entity.entityName(), id).value());
		PENDING.set(fence);
		return fence;
	}

	/**
	 * The entity's fenced type, or {@code null}. A StatelessSession bypasses the flush
	 * that carries the fence: its writes of a fenced entity are refused here, before any
	 * statement.
	 */
	private @Nullable FencedEntity fenced(EntityPersister persister, SharedSessionContractImplementor session,
			Object entity) {
		FencedEntity fenced = this.entities.get(persister.getEntityName());
		if (fenced != null && session.isStateless()) {
			throw statelessWrite(fenced.entityName());
		}
		return fenced;
	}

	static UnsupportedOperationException statelessWrite(String entityName) {
		return new UnsupportedOperationException("A StatelessSession write of fenced entity " + entityName
				+ " would not be fenced: write it through a Session (an EntityManager or a Spring Data repository)");
	}

	@Override
	public void onPostUpdate(PostUpdateEvent event) {
		PENDING.remove();
	}

	@Override
	public void onPostDelete(PostDeleteEvent event) {
		PENDING.remove();
	}

	@Override
	public boolean requiresPostCommitHandling(EntityPersister persister) {
		return false;
	}

	/**
	 * Runs Hibernate's flush listeners, turning a row the fence refused into the refusal.
	 */
	FlushEventListener flushListener(List<FlushEventListener> flushListeners) {
		return (event) -> flushing(event.getSession(),
				() -> flushListeners.forEach((listener) -> listener.onFlush(event)));
	}

	/** As {@link #flushListener}, for the flushes Hibernate makes before a query. */
	AutoFlushEventListener autoFlushListener(List<AutoFlushEventListener> autoFlushListeners) {
		return (event) -> flushing(event.getSession(),
				() -> autoFlushListeners.forEach((listener) -> listener.onAutoFlush(event)));
	}

	private void flushing(EventSource session, Runnable flush) {
		try {
			flush.run();
		}
		catch (StaleStateException ex) {
			throw refusalOrItself(session, ex);
		}
		finally {
			PENDING.remove();
		}
	}

	/**
	 * A row Hibernate expected to change did not: a {@link StaleWriterException} when the
	 * row holds a newer token than this thread's, else Hibernate's own exception (the row
	 * is gone, or a {@code @Version} check failed).
	 */
	private RuntimeException refusalOrItself(EventSource session, StaleStateException ex) {
		if (!(ex instanceof StaleObjectStateException stale) || stale.getIdentifier() == null) {
			return ex;
		}
		FencedEntity entity = this.entities.get(stale.getEntityName());
		FencingToken token = (entity != null) ? boundToken() : null;
		if (entity == null || token == null) {
			return ex;
		}
		Object id = stale.getIdentifier();
		EntityPersister persister = session.getFactory().getMappingMetamodel().getEntityDescriptor(entity.entityName());
		Long accepted;
		try {
			accepted = entity.tokenInStorage(persister, id, session);
		}
		catch (SQLException | RuntimeException lookup) {
			logger.warn("Could not read the token of {}#{} after its write changed no row", entity.entityName(), id,
					lookup);
			return ex;
		}
		if (accepted == null || accepted <= token.value()) {
			return ex;
		}
		TokenBindings.reportRefusal(token, accepted);
		StaleWriterException refused = new StaleWriterException(token.lockName(), token.value(), accepted);
		refused.initCause(ex);
		this.refusals.accept(refused, entity.table());
		return refused;
	}

	private static @Nullable FencingToken boundToken() {
		try {
			return TokenBindings.tokenOfTheOnlyLock("", (tokens) -> "");
		}
		catch (IllegalStateException ex) {
			return null;
		}
	}

}
