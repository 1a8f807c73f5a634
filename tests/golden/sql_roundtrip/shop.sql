-- input/shop.db is this script run by SQLite:
--   python -c "import sqlite3; sqlite3.connect('input/shop.db').executescript(open('shop.sql').read())"
CREATE TABLE people (
    id INTEGER PRIMARY KEY,
    name TEXT,
    age INTEGER,
    score REAL,
    member BOOLEAN,
    born DATE,
    seen DATETIME
);
INSERT INTO people VALUES
    (1, 'Ada', 36, 9.5, 1, '1988-01-31', '2024-01-31 10:15:00.000000'),
    (2, 'Linus', NULL, NULL, NULL, NULL, NULL),
    (3, NULL, 85, 7.25, 0, '1939-05-01', '2023-05-01 08:00:00.000000'),
    (4, 'Grace', 12, 3.0, 1, '2012-12-09', '2024-02-29 23:59:59.500000'),
    (5, 'O''Brien', 45, -1.5, 0, '1979-07-14', NULL);
