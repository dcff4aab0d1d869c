-- canopy's own store lives beside Temporal's databases on the same PostgreSQL server.
CREATE DATABASE canopy;
