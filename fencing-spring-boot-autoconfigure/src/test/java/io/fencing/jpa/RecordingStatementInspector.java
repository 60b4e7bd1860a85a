package io.fencing.jpa;

import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;

import org.hibernate.resource.jdbc.spi.StatementInspector;

/**
 * An application's own statement inspector, named by class in its Hibernate properties:
 * records every statement and marks it with a comment at its end.
 */
public class RecordingStatementInspector implements StatementInspector {

	private static final Queue<String> seen = new ConcurrentLinkedQueue<>();

	@Override
	public String inspect(String sql) {
		seen.add(sql);
		return sql + " -- inspected";
	}

	static List<String> seen() {
		return List.copyOf(seen);
	}

}
