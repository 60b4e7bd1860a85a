package io.fencing.campaign;

import io.fencing.jpa.FencingTokenColumn;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

/**
 * A row of the campaign's table as a fenced JPA entity: the workers' JPA writes load it
 * through {@link CampaignStockRepository} and change it by dirty checking, as a user's
 * job does.
 */
@Entity
@Table(name = "campaign_stock")
class CampaignStock {

	@Id
	private Integer id;

	private String val;

	private String op;

	@FencingTokenColumn
	private Long lastToken;

	void write(String value) {
		this.val = value;
		this.op = null;
	}

}
