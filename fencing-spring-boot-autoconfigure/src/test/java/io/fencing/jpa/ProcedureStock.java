package io.fencing.jpa;

import jakarta.persistence.Entity;
import jakarta.persistence.Table;
import org.hibernate.annotations.SQLUpdate;

/** A fenced entity whose updates an application routes to a stored procedure. */
@Entity
@Table(name = "procedure_stock")
@SQLUpdate(sql = "{call update_procedure_stock(?, ?, ?)}", callable = true)
public class ProcedureStock extends StockRow {

	@FencingTokenColumn
	private long lastToken;

	protected ProcedureStock() {
	}

	public ProcedureStock(String sku, int quantity) {
		super(sku, quantity);
	}

}
