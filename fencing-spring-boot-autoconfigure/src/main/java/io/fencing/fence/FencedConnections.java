package io.fencing.fence;

import javax.sql.DataSource;

/**
 * A {@link DataSource} whose connections carry the writer's token to the database fence:
 * a {@link FencedDataSource}, or an application's data source bean as the starter hands
 * it out.
 */
public interface FencedConnections {

	/** The data source behind it, whose connections carry no writer's token. */
	DataSource unfencedDataSource();

	/**
	 * From now on, its connections carry the writer's token: an application's data source
	 * bean fences them once the starter knows of a fenced table (until then they are
	 * handed out as they are, and an application without one pays nothing).
	 */
	void fenceConnections();

}
