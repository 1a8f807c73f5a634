"""The seed's ETL as a user would write it by hand with DuckDB: one contestant of bench/etl.py.

python bench/duckdb_etl.py USERS.csv COUNTRIES.csv OUT.csv [MEMORY_LIMIT]

MEMORY_LIMIT (such as 1GiB) is DuckDB's own `memory_limit`; past it, DuckDB spills to a
folder next to OUT.csv.
"""

import sys
from pathlib import Path

import duckdb

users_path, countries_path, out_path = sys.argv[1:4]
config = {}
if len(sys.argv) > 4:
    config = {"memory_limit": sys.argv[4], "temp_directory": str(Path(out_path).parent / "spill")}
con = duckdb.connect(config=config)
con.read_csv(users_path).create_view("users")
con.read_csv(countries_path).create_view("countries")
result = con.sql("""
    WITH adults AS (
        SELECT * REPLACE (upper(name) AS name), amount * 0.92 AS amount_eur
        FROM users
        WHERE age > 18
    ),
    by_country AS (
        SELECT country, count(id) AS users, sum(amount_eur) AS amount_eur, avg(age) AS mean_age
        FROM adults
        GROUP BY country
    )
    SELECT * FROM by_country JOIN countries USING (country)
""")
result.write_csv(out_path)
