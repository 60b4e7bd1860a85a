package io.fencing.campaign;

import org.springframework.data.repository.CrudRepository;

/**
 * The workers' JPA repository of the campaign's table.
 */
interface CampaignStockRepository extends CrudRepository<CampaignStock, Integer> {

}
