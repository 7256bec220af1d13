-- The tables of Thunderbird's global-messages-db.sqlite that the tasks'
-- SQL reads (the columns gloda's datastore creates), with three messages in
-- the Bills folder (folderID 13) and one elsewhere. Attribute 58 is "star".
CREATE TABLE folderLocations (id INTEGER PRIMARY KEY, folderURI TEXT NOT NULL, dirtyStatus INTEGER NOT NULL, name TEXT NOT NULL, indexingPriority INTEGER NOT NULL);
CREATE TABLE messages (id INTEGER PRIMARY KEY, folderID INTEGER, messageKey INTEGER, conversationID INTEGER NOT NULL, date INTEGER, headerMessageID TEXT, deleted INTEGER NOT NULL DEFAULT 0, jsonAttributes TEXT, notability INTEGER NOT NULL DEFAULT 0);
CREATE TABLE messageAttributes (conversationID INTEGER NOT NULL, messageID INTEGER NOT NULL, attributeID INTEGER NOT NULL, value NUMERIC);
CREATE INDEX messageAttribFastLookup ON messageAttributes (attributeID, value);
INSERT INTO folderLocations VALUES (12, 'mailbox://nobody@Local%20Folders/Inbox', 0, 'Inbox', 60), (13, 'mailbox://nobody@Local%20Folders/Bills', 0, 'Bills', 50);
INSERT INTO messages (id, folderID, messageKey, conversationID, date, headerMessageID) VALUES
 (1, 13, 1, 1, 1704362491000000, 'bill-1@example.com'),
 (2, 13, 2, 2, 1704362492000000, 'bill-2@example.com'),
 (3, 13, 3, 3, 1704362493000000, 'bill-3@example.com'),
 (4, 12, 1, 4, 1704362494000000, 'hello@example.com');
INSERT INTO messageAttributes VALUES (1, 1, 50, 12), (2, 2, 50, 12), (3, 3, 50, 12), (4, 4, 50, 11);
