"""Produces Trade records with Confluent's own Python client and Avro serializer, for ConfluentInputIT.

    produce_confluent_avro.py BOOTSTRAP_SERVERS REGISTRY_URL TOPIC FIRST_ID COUNT

The values are framed by confluent_kafka's AvroSerializer (magic byte 0, 4-byte schema id, Avro binary datum), which
registers the schema under the subject TOPIC-value (auto.register.schemas) on first use. Every field is a function of
the record id, the same functions ConfluentInputIT uses on the Java side. Prints the schema id the serializer framed
with, and exits non-zero if any record was not delivered.
"""

import struct
import sys

from confluent_kafka import Producer
from confluent_kafka.schema_registry import SchemaRegistryClient
from confluent_kafka.schema_registry.avro import AvroSerializer
from confluent_kafka.serialization import MessageField, SerializationContext

# The same schema as ConfluentInputIT.TRADE, written out independently (other whitespace, same Avro schema).
TRADE_SCHEMA = """
{
  "type": "record",
  "name": "Trade",
  "namespace": "io.hivesink.sample",
  "fields": [
    {"name": "id", "type": "long"},
    {"name": "region", "type": "string"},
    {"name": "symbol", "type": "string"},
    {"name": "price", "type": "double"},
    {"name": "qty", "type": "int"},
    {"name": "side", "type": {"type": "enum", "name": "Side", "symbols": ["BUY", "SELL"]}},
    {"name": "note", "type": ["null", "string"], "default": null},
    {"name": "at", "type": {"type": "long", "logicalType": "timestamp-millis"}}
  ]
}
"""

REGIONS = ["eu", "us", "apac"]
SYMBOLS = ["ACME", "GLOBEX", "INITECH", "UMBRELLA", "STARK", "WAYNE", "HOOLI"]
BASE_EPOCH_MILLIS = 1795342530123  # 2026-11-22T10:15:30.123Z, SampleData.BASE_EPOCH_MILLIS


def trade(i):
    """Mirrors ConfluentInputIT.trade(long id)."""
    return {
        "id": i,
        "region": REGIONS[i % 3],
        "symbol": SYMBOLS[i % 7] + "-\u00e9" if i % 5 == 0 else SYMBOLS[i % 7],
        "price": i * 0.25 + 0.5,
        "qty": i % 10 + 1,
        "side": "BUY" if i % 2 == 0 else "SELL",
        "note": None if i % 4 == 0 else "note \u00e9\u00e8 #%d" % i,
        "at": BASE_EPOCH_MILLIS + i * 1000,  # an int passes through fastavro's timestamp-millis as it is
    }


def main(argv):
    if len(argv) != 6:
        print(__doc__, file=sys.stderr)
        return 2
    bootstrap, registry_url, topic, first, count = argv[1], argv[2], argv[3], int(argv[4]), int(argv[5])

    registry = SchemaRegistryClient({"url": registry_url})
    serializer = AvroSerializer(registry, TRADE_SCHEMA, conf={"auto.register.schemas": True})
    producer = Producer({
        "bootstrap.servers": bootstrap,
        "acks": "all",
        "linger.ms": 5,
        "message.timeout.ms": 60000,
    })

    errors = []
    delivered = [0]

    def on_delivery(err, msg):
        if err is not None:
            errors.append("%s [%s]: %s" % (msg.key(), msg.partition(), err))
        else:
            delivered[0] += 1

    schema_ids = set()
    for i in range(first, first + count):
        value = serializer(trade(i), SerializationContext(topic, MessageField.VALUE))
        magic, schema_id = struct.unpack(">bI", value[:5])
        if magic != 0:
            errors.append("record %d: the serializer wrote magic byte %d" % (i, magic))
        schema_ids.add(schema_id)
        while True:
            try:
                producer.produce(topic, key=str(i).encode("utf-8"), value=value, on_delivery=on_delivery)
                break
            except BufferError:
                producer.poll(0.1)
        producer.poll(0)

    left = producer.flush(60)
    if left:
        errors.append("%d records still undelivered after flush" % left)
    print("schema ids: %s" % ",".join(str(s) for s in sorted(schema_ids)))
    print("delivered: %d of %d" % (delivered[0], count))
    if errors or delivered[0] != count:
        for error in errors[:20]:
            print("delivery error: " + error, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
