"""The seed's ETL as a user would write it by hand with Polars (lazy): a contestant of bench/etl.py.

python bench/polars_etl.py USERS.csv COUNTRIES.csv OUT.csv

`sink_csv` runs the query on Polars' streaming engine, in batches: Polars has no memory limit
setting of its own, streaming is how it keeps memory down.
"""

import sys

import polars as pl

users_path, countries_path, out_path = sys.argv[1:4]
adults = (
    pl.scan_csv(users_path)
    .filter(pl.col("age") > 18)
    .with_columns(amount_eur=pl.col("amount") * 0.92, name=pl.col("name").str.to_uppercase())
)
by_country = adults.group_by("country").agg(
    users=pl.col("id").count(), amount_eur=pl.col("amount_eur").sum(), mean_age=pl.col("age").mean()
)
result = by_country.join(pl.scan_csv(countries_path), on="country", how="inner")
result.sink_csv(out_path)
