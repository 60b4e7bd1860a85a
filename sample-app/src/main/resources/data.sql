INSERT INTO stock (sku, quantity) SELECT 'A-1', 10 WHERE NOT EXISTS (SELECT 1 FROM stock WHERE sku = 'A-1');
INSERT INTO stock (sku, quantity) SELECT 'B-2', 20 WHERE NOT EXISTS (SELECT 1 FROM stock WHERE sku = 'B-2');
INSERT INTO stock (sku, quantity) SELECT 'C-3', 30 WHERE NOT EXISTS (SELECT 1 FROM stock WHERE sku = 'C-3');
INSERT INTO stock (sku, quantity) SELECT 'R-1', 10 WHERE NOT EXISTS (SELECT 1 FROM stock WHERE sku = 'R-1');
INSERT INTO stock (sku, quantity) SELECT 'R-2', 10 WHERE NOT EXISTS (SELECT 1 FROM stock WHERE sku = 'R-2');
INSERT INTO stock (sku, quantity) SELECT 'R-3', 10 WHERE NOT EXISTS (SELECT 1 FROM stock WHERE sku = 'R-3');
INSERT INTO stock (sku, quantity) SELECT 'R-4', 10 WHERE NOT EXISTS (SELECT 1 FROM stock WHERE sku = 'R-4');
