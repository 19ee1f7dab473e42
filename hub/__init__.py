"""The club's hub: watches every table on an MQTT broker, keeps its own copy of their events and
serves a dashboard. It reads only what tables publish (docs/club.md), never a controller's insides."""
