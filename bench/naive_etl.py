"""The seed's ETL as a user would write it by hand in pandas: the baseline of bench/etl.py.

python bench/naive_etl.py USERS.csv COUNTRIES.csv OUT.csv
"""

import sys

import pandas as pd

users_path, countries_path, out_path = sys.argv[1:4]
users = pd.read_csv(users_path)
adults = users[users["age"] > 18].copy()
adults["amount_eur"] = adults["amount"] * 0.92
adults["name"] = adults["name"].str.upper()
by_country = adults.groupby("country").agg(
    users=("id", "count"), amount_eur=("amount_eur", "sum"), mean_age=("age", "mean")
)
by_country = by_country.reset_index()
countries = pd.read_csv(countries_path)
result = by_country.merge(countries, on="country", how="inner")
result.to_csv(out_path, index=False)
