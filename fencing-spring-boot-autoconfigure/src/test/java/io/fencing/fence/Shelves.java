package io.fencing.fence;

import org.springframework.boot.persistence.autoconfigure.EntityScan;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.jpa.repository.JpaRepository;
import org.springframework.data.jpa.repository.Modifying;
import org.springframework.data.jpa.repository.Query;
import org.springframework.data.jpa.repository.config.EnableJpaRepositories;
import org.springframework.data.repository.query.Param;
import org.springframework.transaction.annotation.Transactional;

/** The Spring Data repository of {@link Shelf}. */
@Configuration(proxyBeanMethods = false)
@EntityScan(basePackageClasses = Shelf.class)
@EnableJpaRepositories(basePackageClasses = Shelves.class, considerNestedRepositories = true)
class Shelves {

	interface ShelfRepository extends JpaRepository<Shelf, String> {

		@Modifying
		@Transactional
		@Query("UPDATE Shelf s SET s.quantity = :quantity WHERE s.sku = :sku")
		int setQuantity(@Param("sku") String sku, @Param("quantity") int quantity);

		@Modifying
		@Transactional
		@Query("DELETE FROM Shelf s WHERE s.quantity >= 0")
		int deleteEveryShelf();

	}

}
