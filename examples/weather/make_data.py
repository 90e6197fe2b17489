"""Write the weather example's CSV folders: hourly readings of four stations of Brazil's Southeast.

The thesis's weather scenario, on data made here (its INMET dataset is not shipped): ``data/raw`` writes a
missing reading as -9999, as INMET's files do; ``data/corrected`` leaves it empty. Both carry the thesis's
injected errors: wind directions over 360° and negative humidities in about 6 % of the rows. Two
measurement columns miss more readings than the others (about 12 %), and solar radiation is missing at
night. Run from the repository root: ``python examples/weather/make_data.py``.
"""

from __future__ import annotations

import csv
import datetime as dt
import random
from pathlib import Path

HERE = Path(__file__).resolve().parent
STATIONS = [  # (code, name, state, lat, lon, elev)
    ("A623", "Nova Venecia", "ES", -18.695265, -40.390572, 156.02),
    ("A701", "Sao Paulo - Mirante", "SP", -23.496294, -46.620088, 785.16),
    ("A652", "Rio de Janeiro - Forte de Copacabana", "RJ", -22.988286, -43.190436, 25.6),
    ("A521", "Belo Horizonte - Pampulha", "MG", -19.883945, -43.969397, 854.0),
]
FIRST_DAY = dt.date(2018, 12, 30)
DAYS = 5
COLUMNS = [
    "index", "date", "hour", "pcpn_mm", "station_pressure_mb", "pressure_max_mb", "pressure_min_mb",
    "radiation_kj_m2", "temp_c", "dewpoint_c", "temp_max_c", "temp_min_c", "dewpoint_max_c", "dewpoint_min_c",
    "humidity_max_perc", "humidity_min_perc", "humidity_perc", "wind_direct_grad", "gust_max_m_s",
    "wind_speed_m_s", "region", "state", "station", "station_code", "lat", "lon", "elev",
]  # fmt: skip
MEASUREMENTS = COLUMNS[3:20]
MISSING = -9999
OFTEN_MISSING = {"gust_max_m_s": 11, "pcpn_mm": 12}
"""Columns missing every 11th and 12th reading besides their downtime (about 12 % in all): the completeness
rule warns about them."""


def readings() -> list[dict[str, object]]:
    """Every row, with ``None`` where a reading is missing."""
    chance = random.Random(2019)
    rows: list[dict[str, object]] = []
    for station_index, (code, name, state, lat, lon, elev) in enumerate(STATIONS):
        for day in range(DAYS):
            date = FIRST_DAY + dt.timedelta(days=day)
            for hour in range(24):
                i = len(rows)
                temp = round(22 + 6 * chance.random() - abs(hour - 14) / 3, 1)
                pressure = round(1013 - elev / 9 + chance.uniform(-2, 2), 1)
                humidity = round(chance.uniform(35, 95))
                row: dict[str, object] = {
                    "index": i + 1,
                    "date": date.isoformat(),
                    "hour": f"{hour:02d}:00",
                    "pcpn_mm": round(max(0.0, chance.gauss(0.3, 1.2)), 1),
                    "station_pressure_mb": pressure,
                    "pressure_max_mb": round(pressure + 0.4, 1),
                    "pressure_min_mb": round(pressure - 0.3, 1),
                    "radiation_kj_m2": round(chance.uniform(100, 3200)) if 6 <= hour <= 18 else None,
                    "temp_c": temp,
                    "dewpoint_c": round(temp - chance.uniform(2, 9), 1),
                    "temp_max_c": round(temp + 0.8, 1),
                    "temp_min_c": round(temp - 0.7, 1),
                    "dewpoint_max_c": round(temp - 1.5, 1),
                    "dewpoint_min_c": round(temp - 9.5, 1),
                    "humidity_max_perc": min(100, humidity + 4),
                    "humidity_min_perc": max(0, humidity - 5),
                    "humidity_perc": humidity,
                    "wind_direct_grad": round(chance.uniform(0, 360)),
                    "gust_max_m_s": round(chance.uniform(0.5, 12), 1),
                    "wind_speed_m_s": round(chance.uniform(0, 6), 1),
                    "region": "SE",
                    "state": state,
                    "station": name,
                    "station_code": code,
                    "lat": lat,
                    "lon": lon,
                    "elev": elev,
                }
                for k, column in enumerate(MEASUREMENTS):  # a sensor's downtime: one reading in 25
                    if column != "radiation_kj_m2" and i % 25 == (k + station_index) % 25:
                        row[column] = None
                for column, every in OFTEN_MISSING.items():
                    if i % every == 0:
                        row[column] = None
                if i % 17 == 3:  # the thesis's injected errors, in about 6 % of the rows
                    row["wind_direct_grad"] = 361 + chance.randrange(120)
                if i % 16 == 5:
                    row["humidity_perc"] = -chance.randrange(1, 30)
                rows.append(row)
    return rows


def write(folder: Path, rows: list[dict[str, object]], missing: object) -> None:
    """One file per year, ``southeast_YYYY.csv``, a missing reading written as ``missing``."""
    folder.mkdir(parents=True, exist_ok=True)
    for year in sorted({str(row["date"])[:4] for row in rows}):
        path = folder / f"southeast_{year}.csv"
        with path.open("w", newline="", encoding="utf-8") as out:
            writer = csv.DictWriter(out, COLUMNS, lineterminator="\n")
            writer.writeheader()
            for row in rows:
                if str(row["date"]).startswith(year):
                    writer.writerow({k: missing if v is None else v for k, v in row.items()})
        print(f"wrote {path.relative_to(HERE.parent.parent)}")


if __name__ == "__main__":
    made = readings()
    write(HERE / "data" / "raw", made, MISSING)
    write(HERE / "data" / "corrected", made, "")
