package io.fencing.jpa;

import org.springframework.boot.persistence.autoconfigure.EntityScan;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.jpa.repository.JpaRepository;
import org.springframework.data.jpa.repository.config.EnableJpaRepositories;

/** The test entities' Spring Data repositories. */
@Configuration(proxyBeanMethods = false)
@EntityScan(basePackageClasses = FencedStock.class)
@EnableJpaRepositories(basePackageClasses = StockRepositories.class, considerNestedRepositories = true)
class StockRepositories {

	interface FencedStocks extends JpaRepository<FencedStock, String> {

	}

	interface VersionedStocks extends JpaRepository<VersionedStock, String> {

	}

	interface PlainStocks extends JpaRepository<PlainStock, String> {

	}

	interface SoftDeletedStocks extends JpaRepository<SoftDeletedStock, String> {

	}

	interface EmbeddedTokenStocks extends JpaRepository<EmbeddedTokenStock, String> {

	}

}
