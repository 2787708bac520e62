"""Creates the topics, produces sample records and deploys the connectors of the docker stack.

Orders are Avro framed by Confluent's serializer (the registry is Apicurio's Confluent-compatible API); clicks are
JSON with schemas, as Connect's JsonConverter writes them. Each connector is deployed with PUT, so running this
again changes nothing but adds records.
"""
import glob
import json
import os
import time
import urllib.request

from confluent_kafka import Producer
from confluent_kafka.admin import AdminClient, NewTopic
from confluent_kafka.schema_registry import SchemaRegistryClient
from confluent_kafka.schema_registry.avro import AvroSerializer
from confluent_kafka.serialization import MessageField, SerializationContext

BOOTSTRAP = os.environ["BOOTSTRAP_SERVERS"]
REGISTRY = os.environ["REGISTRY_URL"]
CONNECT = os.environ["CONNECT_URL"]
ORDERS, CLICKS = 10_000, 1_000
REGIONS = ["eu", "us", "apac"]

ORDER_SCHEMA = json.dumps({
    "type": "record", "name": "Order", "namespace": "shop",
    "fields": [
        {"name": "id", "type": "long"},
        {"name": "region", "type": "string"},
        {"name": "qty", "type": "int"},
        {"name": "price", "type": "double"},
        {"name": "at", "type": {"type": "long", "logicalType": "timestamp-millis"}},
    ],
})

CLICK_SCHEMA = {
    "type": "struct", "name": "shop.Click", "optional": False,
    "fields": [
        {"field": "user", "type": "string", "optional": False},
        {"field": "page", "type": "string", "optional": False},
        {"field": "n", "type": "int64", "optional": False},
    ],
}


def create_topics():
    admin = AdminClient({"bootstrap.servers": BOOTSTRAP})
    wanted = [NewTopic("shop.orders", 2, 1), NewTopic("shop.clicks", 1, 1)]
    existing = admin.list_topics(timeout=30).topics
    futures = admin.create_topics([t for t in wanted if t.topic not in existing])
    for topic, future in futures.items():
        future.result()
        print(f"created topic {topic}")


def produce():
    producer = Producer({"bootstrap.servers": BOOTSTRAP, "linger.ms": 20})
    serialize = AvroSerializer(SchemaRegistryClient({"url": REGISTRY}), ORDER_SCHEMA)
    now = int(time.time() * 1000)
    for i in range(ORDERS):
        order = {"id": i, "region": REGIONS[i % 3], "qty": i % 10 + 1, "price": round(i * 0.25, 2), "at": now + i}
        value = serialize(order, SerializationContext("shop.orders", MessageField.VALUE))
        producer.produce("shop.orders", key=str(i), value=value)
        producer.poll(0)
    for i in range(CLICKS):
        click = {"user": f"u{i % 50}", "page": f"/p/{i % 20}", "n": i}
        producer.produce("shop.clicks", key=str(i), value=json.dumps({"schema": CLICK_SCHEMA, "payload": click}))
        producer.poll(0)
    if producer.flush(60) != 0:
        raise SystemExit("records could not be produced")
    print(f"produced {ORDERS} Avro orders to shop.orders and {CLICKS} JSON clicks to shop.clicks")


def deploy():
    for path in sorted(glob.glob("/connectors/*.json")):
        with open(path) as f:
            connector = json.load(f)
        request = urllib.request.Request(f"{CONNECT}/connectors/{connector['name']}/config",
                                         data=json.dumps(connector["config"]).encode(), method="PUT",
                                         headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=60) as response:
            print(f"deployed {connector['name']} ({response.status})")


if __name__ == "__main__":
    create_topics()
    produce()
    deploy()
    print("Done. Query the tables: docker compose -f docker/compose.yaml exec hiveserver2 "
          "beeline -u jdbc:hive2://localhost:10000/ -e 'select region, count(*) from shop.orders group by region'")
